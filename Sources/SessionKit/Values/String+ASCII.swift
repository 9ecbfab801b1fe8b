/// The few text operations protocol parsing needs, on ASCII rules, without Foundation's `NSString` bridge.
///
/// HTTP header names, token types and auth schemes compare case-insensitively in ASCII only (RFC 9110 §5.1,
/// RFC 6749 §5.1), and URLs percent-encode UTF-8 bytes (RFC 3986 §2.1). Keeping these here lets every SessionKit
/// module import FoundationEssentials alone on Linux, so a program such as `sessionctl` links neither Foundation's
/// Objective-C layer nor ICU (see `Benchmarks/cli.sh`).
extension StringProtocol {
    /// Whether this text equals `other` when ASCII letters are compared without case.
    func equalsIgnoringASCIICase(_ other: some StringProtocol) -> Bool {
        utf8.elementsEqual(other.utf8) { Self.asciiLowercased($0) == Self.asciiLowercased($1) }
    }

    /// Whether `needle` occurs in this text when ASCII letters are compared without case.
    func containsIgnoringASCIICase(_ needle: some StringProtocol) -> Bool {
        let haystack = Array(utf8.lazy.map(Self.asciiLowercased))
        let pattern = Array(needle.utf8.lazy.map(Self.asciiLowercased))
        guard !pattern.isEmpty else { return true }
        guard haystack.count >= pattern.count else { return false }
        return (0...(haystack.count - pattern.count)).contains { start in
            haystack[start..<(start + pattern.count)].elementsEqual(pattern)
        }
    }

    /// This text without the spaces and horizontal tabs (HTTP's optional white space) at either end.
    func trimmingSpacesAndTabs() -> String {
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isBlank($0) }), let last = lastIndex(where: { !isBlank($0) }) else {
            return ""
        }
        return String(self[first...last])
    }

    /// This text with every UTF-8 byte percent-encoded (`%2B`, upper-case hex) except ASCII letters, digits and
    /// the bytes in `kept`.
    func percentEncoded(keeping kept: String = "-._~") -> String {
        let keptBytes = Set(kept.utf8)
        var out = ""
        out.reserveCapacity(utf8.count)
        for byte in utf8 {
            let isAlphanumeric =
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
            if isAlphanumeric || keptBytes.contains(byte) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "%" + byte.hexDigits(count: 2, uppercase: true)
            }
        }
        return out
    }

    private static func asciiLowercased(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
    }
}

extension FixedWidthInteger {
    /// This value in hexadecimal, padded with zeros on the left to at least `count` digits.
    func hexDigits(count: Int, uppercase: Bool = false) -> String {
        let digits = String(self, radix: 16, uppercase: uppercase)
        return String(repeating: "0", count: Swift.max(0, count - digits.count)) + digits
    }
}
