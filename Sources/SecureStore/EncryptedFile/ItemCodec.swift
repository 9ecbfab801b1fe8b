#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The plaintext inside an encrypted store file: the items of one service, as length-prefixed records.
///
/// Layout, all integers big-endian `UInt32`: the item count, then for each item (sorted by key) the
/// key's UTF-8 length, the key, the value's length, the value. Decoding is strict: a short record, a key
/// that is not UTF-8, a repeated key or bytes after the last item fail.
enum ItemCodec {
    /// A decoding failure; the payload was authenticated, so this means a bug or a foreign format.
    struct DecodingError: Error, CustomStringConvertible {
        /// Where in the payload decoding stopped.
        let offset: Int
        /// What was wrong there.
        let reason: String

        var description: String { "malformed item payload at byte \(offset): \(reason)" }
    }

    /// Encodes `items`, sorted by key so that equal contents give equal bytes.
    static func encode(_ items: [String: Data]) -> Data {
        var output = Data()
        appendLength(items.count, to: &output)
        for key in items.keys.sorted() {
            let keyBytes = Data(utf8Of: key)
            appendLength(keyBytes.count, to: &output)
            output.append(keyBytes)
            let value = items[key] ?? Data()
            appendLength(value.count, to: &output)
            output.append(value)
        }
        return output
    }

    /// One decoded item.
    struct Item {
        /// The item's key.
        let key: String
        /// The item's value.
        let value: Data
    }

    /// Decodes a payload made by ``encode(_:)``, in the order it holds the items.
    ///
    /// A list, not a dictionary: building a `[String: Data]` makes the runtime check `String: Hashable`, and the
    /// first such check scans every conformance of a binary as large as `sessionctl` (see `Benchmarks/cli.sh`).
    /// Readers of one item search the list; writers turn it into a dictionary with ``dictionary(_:)``.
    static func decode(_ payload: Data) throws(DecodingError) -> [Item] {
        let bytes = [UInt8](payload)
        var offset = 0
        let count = try readLength(bytes, &offset)
        var items: [Item] = []
        for _ in 0..<count {
            let keyBytes = try readChunk(bytes, &offset)
            guard let key = String(validating: keyBytes, as: UTF8.self) else {
                throw DecodingError(offset: offset, reason: "key is not UTF-8")
            }
            let value = try readChunk(bytes, &offset)
            items.append(Item(key: key, value: Data(value)))
        }
        guard offset == bytes.count else {
            throw DecodingError(offset: offset, reason: "\(bytes.count - offset) bytes after the last item")
        }
        let keys = items.map(\.key).sorted()
        if let repeated = zip(keys, keys.dropFirst()).first(where: { $0 == $1 }) {
            throw DecodingError(offset: offset, reason: "repeated key '\(repeated.0)'")
        }
        return items
    }

    /// The decoded `items` by key (``decode(_:)`` has rejected repeated keys).
    static func dictionary(_ items: [Item]) -> [String: Data] {
        Dictionary(items.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    private static func appendLength(_ length: Int, to output: inout Data) {
        let value = UInt32(length)
        output.append(contentsOf: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) })
    }

    private static func readLength(_ bytes: [UInt8], _ offset: inout Int) throws(DecodingError) -> Int {
        guard bytes.count - offset >= 4 else {
            throw DecodingError(offset: offset, reason: "length cut short")
        }
        var value: UInt32 = 0
        for index in offset..<offset + 4 {
            value = value << 8 | UInt32(bytes[index])
        }
        guard let length = Int(exactly: value) else {
            throw DecodingError(offset: offset, reason: "length \(value) does not fit this platform")
        }
        offset += 4
        return length
    }

    private static func readChunk(_ bytes: [UInt8], _ offset: inout Int) throws(DecodingError) -> ArraySlice<UInt8> {
        let length = try readLength(bytes, &offset)
        guard bytes.count - offset >= length else {
            throw DecodingError(offset: offset, reason: "record of \(length) bytes cut short")
        }
        defer { offset += length }
        return bytes[offset..<offset + length]
    }
}
