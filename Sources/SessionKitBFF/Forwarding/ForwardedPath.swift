import SessionKitSupport

/// Which request targets `/api/...` forwards: an allow-list, not a block-list.
///
/// A path is forwarded only when every character is one RFC 3986 allows in a path segment except `;` (letters,
/// digits, `-._~!$&'()*+,=:@` and `/`), and every percent-escape decodes to a byte that is not a path
/// separator or a control character (`/`, `\`, `%`, `;`, bytes below 0x20 and 0x7F), with the decoded bytes
/// valid UTF-8 (no overlong forms). After decoding, no segment may be `.` or `..`. So a server behind the proxy
/// that decodes once more, normalises, or reads `;` as a parameter separator (`..;`) still cannot be made to
/// climb above the upstream's base path: `%2e%2e`, `%252e`, `%2f`, `%5c`, `%00`, `%c0%ae` and `..;/` are all
/// refused. The query is passed on as sent when it holds no control characters, spaces or `#`.
enum ForwardedPath {
    /// The path and query after `mount` (`/api`), with a leading `/`; `nil` when refused.
    static func validated(_ requestTarget: String, under mount: String) -> String? {
        guard requestTarget.utf8.count <= 8192, requestTarget.hasPrefix(mount) else { return nil }
        var rest = String(requestTarget.dropFirst(mount.count))
        if rest.isEmpty || rest.hasPrefix("?") {
            rest = "/" + rest
        } else if !rest.hasPrefix("/") {
            return nil  // `/apix`: another route's name, not a path under the mount
        }
        let parts = rest.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        guard let path = parts.first, let segments = decodedSegments(path) else { return nil }
        guard !segments.contains(where: { $0 == "." || $0 == ".." }) else { return nil }
        if parts.count == 2 {
            guard parts[1].utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "#") }) else { return nil }
        }
        return rest
    }

    /// The path's segments, percent-decoded; `nil` when a character or an escape is not allowed.
    private static func decodedSegments(_ path: Substring) -> [String]? {
        var segments: [String] = []
        var current: [UInt8] = []
        var bytes = path.utf8.makeIterator()
        while let byte = bytes.next() {
            switch byte {
            case UInt8(ascii: "/"):
                guard let segment = String(validating: current, as: UTF8.self) else { return nil }
                segments.append(segment)
                current.removeAll(keepingCapacity: true)
            case UInt8(ascii: "%"):
                guard let high = bytes.next().flatMap(Hex.value(of:)), let low = bytes.next().flatMap(Hex.value(of:))
                else { return nil }
                let decoded = high << 4 | low
                guard decoded >= 0x20, decoded != 0x7F, !forbiddenDecoded.contains(decoded) else { return nil }
                current.append(decoded)
            default:
                guard allowedLiteral(byte) else { return nil }
                current.append(byte)
            }
        }
        guard let last = String(validating: current, as: UTF8.self) else { return nil }
        segments.append(last)
        return segments
    }

    /// Bytes an escape may not stand for: separators a later decoder could act on, and `%` (double encoding).
    private static let forbiddenDecoded: Set<UInt8> = [
        UInt8(ascii: "/"), UInt8(ascii: "\\"), UInt8(ascii: "%"), UInt8(ascii: ";"),
    ]

    private static func allowedLiteral(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default: punctuation.contains(byte)
        }
    }

    /// The punctuation a path segment may hold literally (RFC 3986 `pchar`, less `;`).
    private static let punctuation = Set("-._~!$&'()*+,=:@".utf8)
}
