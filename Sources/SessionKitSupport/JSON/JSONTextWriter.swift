/// Compact JSON text for a ``JSONValue``, keys sorted, written byte by byte: the writing half of ``JSONParser``, for
/// session records, DPoP proofs' claims and ``JSONValue/jsonData()``.
///
/// `JSONEncoder` reaches a value through `Codable` containers and boxes it twice on the way: a 2.5 KB value shaped
/// like a session record, which a server writes on every renewal, took it 3.6 times as long to write as
/// ``JSONParser`` takes to read it; this writer takes about as long as the parser (see `Benchmarks/server.sh`). What
/// it writes, `JSONDecoder` and ``JSONParser`` read back as the same value (the tests compare them), doubles to the
/// last bit.
package struct JSONTextWriter {
    /// A value JSON cannot hold.
    package struct Failure: Error, CustomStringConvertible {
        /// What cannot be written, in words.
        package let reason: String

        /// A failure for `reason`.
        package init(reason: String) { self.reason = reason }

        /// The reason.
        package var description: String { reason }
    }

    private var bytes: [UInt8] = []

    /// The value as JSON text (UTF-8).
    package static func write(_ value: JSONValue) throws(Failure) -> [UInt8] {
        var writer = JSONTextWriter()
        writer.bytes.reserveCapacity(1_024)
        try writer.value(value)
        return writer.bytes
    }

    private mutating func value(_ value: JSONValue) throws(Failure) {
        switch value {
        case .null: append("null")
        case .bool(let flag): append(flag ? "true" : "false")
        case .int(let number): bytes.append(contentsOf: String(number).utf8)
        case .double(let number):
            // The shortest text that reads back as the same double (Swift's `description`), which is a JSON
            // number for every finite double: "0.1", "786000000.0", "1e-05", "-0.0".
            guard number.isFinite else { throw Failure(reason: "\(number) is not a JSON number") }
            bytes.append(contentsOf: number.description.utf8)
        case .string(let text): string(text)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                try self.value(element)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            bytes.append(UInt8(ascii: "{"))
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                string(key)
                bytes.append(UInt8(ascii: ":"))
                try self.value(members[key]!)  // a key of `members`, just listed
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// A string, quoted: `"` and `\` escaped, control characters as `\n`-style or `\u00XX` escapes, the rest as is.
    private mutating func string(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        // Tokens and most other strings need no escape: copied whole.
        guard text.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else {
            bytes.append(contentsOf: text.utf8)
            bytes.append(UInt8(ascii: "\""))
            return
        }
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): append("\\\"")
            case UInt8(ascii: "\\"): append("\\\\")
            case 0x0A: append("\\n")
            case 0x0D: append("\\r")
            case 0x09: append("\\t")
            case 0x08: append("\\b")
            case 0x0C: append("\\f")
            case 0x00..<0x20:
                append("\\u00")
                bytes.append(Hex.digits[Int(byte >> 4)])
                bytes.append(Hex.digits[Int(byte & 0x0F)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func append(_ literal: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }
}
