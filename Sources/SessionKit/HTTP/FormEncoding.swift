#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `application/x-www-form-urlencoded` bodies, as OAuth token requests use them.
enum FormEncoding {
    /// Percent-encodes one name or value.
    static func escape(_ text: String) -> String {
        text.percentEncoded()
    }

    /// Encodes `parameters` in order.
    static func encode(_ parameters: [(String, String)]) -> Data {
        Data(parameters.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&").utf8)
    }
}
