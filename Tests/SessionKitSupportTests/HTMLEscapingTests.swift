import Testing

@testable import SessionKitSupport

/// The one HTML escaping of the loopback listener's, the emulator's and the back end for front ends' pages.
@Suite("HTML escaping")
struct HTMLEscapingTests {
    @Test("the five characters that end text or a quoted attribute become entities; the rest is kept")
    func escapes() {
        #expect(
            HTMLEscaping.escaped(#"<a href="x">Tom & 'Jerry'</a>"#)
                == "&lt;a href=&quot;x&quot;&gt;Tom &amp; &#39;Jerry&#39;&lt;/a&gt;")
        #expect(HTMLEscaping.escaped("héllo wörld 🙂") == "héllo wörld 🙂")
        #expect(HTMLEscaping.escaped("&amp;") == "&amp;amp;", "escaping is not undone: text is text")
        #expect(HTMLEscaping.escaped("") == "")
    }
}
