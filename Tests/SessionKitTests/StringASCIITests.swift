import Testing

@testable import SessionKit

/// The text operations SessionKit does without Foundation's `NSString` bridge: the same answers Foundation gave for
/// protocol text, and RFC 3986 percent-encoding of UTF-8 bytes.
@Suite("ASCII text helpers")
struct StringASCIITests {
    @Test("equal ignoring ASCII case: token types and header names; other letters compare exactly")
    func equalsIgnoringCase() {
        #expect("DPoP".equalsIgnoringASCIICase("dpop"))
        #expect("bearer".equalsIgnoringASCIICase("Bearer"))
        #expect("WWW-Authenticate".equalsIgnoringASCIICase("www-authenticate"))
        #expect(!"Bearer".equalsIgnoringASCIICase("Bearer "))
        #expect(!"DPoP".equalsIgnoringASCIICase("DPo"))
        #expect(!"É".equalsIgnoringASCIICase("é"))  // only ASCII letters fold
        #expect(!"[".equalsIgnoringASCIICase("{"))  // 0x5B and 0x7B differ by 0x20 but are not letters
    }

    @Test("contains ignoring ASCII case")
    func containsIgnoringCase() {
        #expect(#"dpop error="use_dpop_nonce""#.containsIgnoringASCIICase("DPoP"))
        #expect(#"Bearer realm="x", DPoP algs="ES256""#.containsIgnoringASCIICase("dpop"))
        #expect(!"Bearer realm=\"x\"".containsIgnoringASCIICase("DPoP"))
        #expect("".containsIgnoringASCIICase(""))
        #expect(!"DP".containsIgnoringASCIICase("DPoP"))
    }

    @Test("trimming spaces and tabs at both ends only")
    func trimming() {
        #expect(" \t error \t".trimmingSpacesAndTabs() == "error")
        #expect("a b".trimmingSpacesAndTabs() == "a b")
        #expect(" \t ".trimmingSpacesAndTabs() == "")
        #expect("".trimmingSpacesAndTabs() == "")
        #expect("\nx\n".trimmingSpacesAndTabs() == "\nx\n")
    }

    @Test("percent-encoding: every UTF-8 byte but letters, digits and the kept marks, in upper-case hex")
    func percentEncoding() {
        #expect("auth0|5f7c8ec7".percentEncoded(keeping: "-_.") == "auth0%7C5f7c8ec7")
        #expect("a b+c/d?e=f&g~h".percentEncoded() == "a%20b%2Bc%2Fd%3Fe%3Df%26g~h")
        #expect("é".percentEncoded() == "%C3%A9")
        #expect("openid profile".percentEncoded() == "openid%20profile")
        #expect("A-Z_a.z~09".percentEncoded() == "A-Z_a.z~09")
        #expect("~".percentEncoded(keeping: "-_.") == "%7E")
    }

    @Test("hex digits padded to a width")
    func hex() {
        #expect(UInt32(0x1F).hexDigits(count: 4) == "001f")
        #expect(UInt8(0xAB).hexDigits(count: 2, uppercase: true) == "AB")
        #expect(UInt32(0x12345).hexDigits(count: 4) == "12345")
    }
}
