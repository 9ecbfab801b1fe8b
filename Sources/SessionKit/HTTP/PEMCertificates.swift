#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The certificates of a PEM file, as DER: what `URLSessionTransport` hands the platform's trust evaluation, and
/// how ``NetworkOptions/check()`` knows a file holds a certificate at all.
enum PEMCertificates {
    private static let begin = "-----BEGINCERTIFICATE-----"  // The marker lines without their spaces.
    private static let end = "-----ENDCERTIFICATE-----"

    /// Each `BEGIN CERTIFICATE` block of `text` whose base64 decodes, in order.
    static func der(in text: String) -> [Data] {
        var blocks: [Data] = []
        var body: String?
        for line in text.split(whereSeparator: \.isNewline) {
            let trimmed = line.filter { !$0.isWhitespace }
            if trimmed == begin {
                body = ""
            } else if trimmed == end, let base64 = body {
                if let der = Data(base64Encoded: base64), !der.isEmpty { blocks.append(der) }
                body = nil
            } else {
                body?.append(contentsOf: trimmed)
            }
        }
        return blocks
    }

    /// The certificates of the PEM files at `paths`, or `nil` when a file cannot be read.
    static func der(inFiles paths: [String]) -> [Data]? {
        var all: [Data] = []
        for path in paths {
            guard let contents = FileManager.default.contents(atPath: path) else { return nil }
            all += der(in: String(decoding: contents, as: UTF8.self))
        }
        return all
    }
}
