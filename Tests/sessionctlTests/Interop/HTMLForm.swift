import Foundation

/// The first `<form>` of a page, read just well enough to submit it: where it posts and the values of its
/// named inputs (hidden ones such as a CSRF token, and pre-filled ones such as a user code).
struct HTMLForm: Sendable {
    /// Where the form posts: its `action` resolved against the page, or the page itself.
    let action: URL
    /// Named inputs with their current values.
    let fields: [String: String]

    init?(html: String, page: URL) {
        guard let start = html.range(of: "<form", options: .caseInsensitive) else { return nil }
        let rest = html[start.lowerBound...]
        let end = rest.range(of: "</form>", options: .caseInsensitive)?.lowerBound ?? rest.endIndex
        let body = rest[..<end]
        let formTag = body[..<(body.firstIndex(of: ">") ?? body.endIndex)]
        let action = Self.attributes(of: formTag)["action"].flatMap { $0.isEmpty ? nil : $0 }
        self.action = action.flatMap { URL(string: $0, relativeTo: page)?.absoluteURL } ?? page
        var fields: [String: String] = [:]
        for input in body.matches(of: /<input\b[^>]*>/.ignoresCase()) {
            let attributes = Self.attributes(of: input.output)
            guard let name = attributes["name"], attributes["type"]?.lowercased() != "submit" else { continue }
            fields[name] = attributes["value"] ?? ""
        }
        self.fields = fields
    }

    /// The `name="value"` attributes of one tag, with HTML character references decoded.
    private static func attributes(of tag: Substring) -> [String: String] {
        var attributes: [String: String] = [:]
        for match in tag.matches(of: /([A-Za-z_:-]+)\s*=\s*"([^"]*)"/) {
            attributes[match.output.1.lowercased()] = unescape(String(match.output.2))
        }
        return attributes
    }

    private static func unescape(_ text: String) -> String {
        [("&quot;", "\""), ("&#x27;", "'"), ("&#39;", "'"), ("&lt;", "<"), ("&gt;", ">"), ("&amp;", "&")]
            .reduce(text) { $0.replacingOccurrences(of: $1.0, with: $1.1) }
    }
}
