import Foundation
import Testing

@testable import SecureStore

@Suite("ItemCodec: the plaintext inside store files")
struct ItemCodecTests {
    private let items: [String: Data] = [
        "b": Data([0, 1, 2]),
        "a": Data(),
        "ключ": Data("значение".utf8),
    ]

    @Test("round trip, with equal bytes for equal items")
    func roundTrip() throws {
        let encoded = ItemCodec.encode(items)
        #expect(ItemCodec.dictionary(try ItemCodec.decode(encoded)) == items)
        #expect(try ItemCodec.decode(encoded).map(\.key) == items.keys.sorted())
        #expect(ItemCodec.encode(items) == encoded)
        #expect(try ItemCodec.decode(ItemCodec.encode([:])).isEmpty)
    }

    @Test("every truncation and any appended byte is rejected")
    func truncatedOrExtended() {
        let encoded = ItemCodec.encode(items)
        for length in 0..<encoded.count {
            #expect(throws: ItemCodec.DecodingError.self) { try ItemCodec.decode(encoded.prefix(length)) }
        }
        #expect(throws: ItemCodec.DecodingError.self) { try ItemCodec.decode(encoded + Data([0])) }
    }

    @Test("repeated keys, non-UTF-8 keys and huge lengths are rejected")
    func malformed() {
        let repeated = Data([0, 0, 0, 2, 0, 0, 0, 1, 0x61, 0, 0, 0, 0, 0, 0, 0, 1, 0x61, 0, 0, 0, 0])
        #expect(throws: ItemCodec.DecodingError.self) { try ItemCodec.decode(repeated) }
        let badKey = Data([0, 0, 0, 1, 0, 0, 0, 1, 0xFF, 0, 0, 0, 0])
        #expect(throws: ItemCodec.DecodingError.self) { try ItemCodec.decode(badKey) }
        let huge = Data([0, 0, 0, 1, 0xFF, 0xFF, 0xFF, 0xFF, 0x61])
        #expect(throws: ItemCodec.DecodingError.self) { try ItemCodec.decode(huge) }
    }

    @Test("random bytes never crash the decoder")
    func randomBytes() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let count = Int.random(in: 0...64, using: &generator)
            let bytes = Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
            _ = try? ItemCodec.decode(bytes)
        }
        #expect(try ItemCodec.decode(Data([0, 0, 0, 0])).isEmpty)
    }
}
