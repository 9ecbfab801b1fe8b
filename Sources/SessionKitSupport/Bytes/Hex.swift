/// Lower-case hexadecimal text for bytes, as digests are named in rows, announcements and session accounts.
///
/// `String(format: "%02x", byte)` per byte goes through Foundation's formatter: in the renewal storm of
/// `Benchmarks/server.sh` it was a tenth of each instance's CPU. This writes the characters directly.
package enum Hex {
    /// The lower-case hexadecimal digits, by value.
    package static let digits = Array("0123456789abcdef".utf8)

    /// The bytes as `2 × count` lower-case hexadecimal characters.
    package static func string<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
        let array = Array(bytes)
        return String(unsafeUninitializedCapacity: array.count * 2) { buffer in
            for (index, byte) in array.enumerated() {
                buffer[2 * index] = digits[Int(byte >> 4)]
                buffer[2 * index + 1] = digits[Int(byte & 0x0f)]
            }
            return array.count * 2
        }
    }

    /// The bytes written by ``string(_:)``, or `nil` unless `text` is an even number of hexadecimal characters
    /// (either case).
    package static func bytes<Text: Collection<UInt8>>(_ text: Text) -> [UInt8]? {
        // Copied first: a caller in another module reaches this unspecialized, where walking `Text` itself costs
        // a witness call per character.
        bytes(ArraySlice(text))
    }

    /// ``bytes(_:)`` for a slice of bytes, as a listener reads a digest out of every announcement: no generic
    /// copy first (that copy, unspecialized across modules, was a third of the digest's cost).
    package static func bytes(_ characters: ArraySlice<UInt8>) -> [UInt8]? {
        guard characters.count % 2 == 0 else { return nil }
        var result: [UInt8] = []
        result.reserveCapacity(characters.count / 2)
        var high: UInt8?
        for character in characters {
            guard let nibble = value(of: character) else { return nil }
            if let first = high {
                result.append(first << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        return result
    }

    /// The value of one hexadecimal digit (either case), or `nil` for any other character: for readers of
    /// hexadecimal text in other shapes (percent escapes, `\u` escapes).
    package static func value(of character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
