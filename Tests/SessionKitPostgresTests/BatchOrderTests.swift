import NIOCore
import Testing

@testable import SessionKitPostgres

/// ``BatchOrder`` alone: every instance must send a batch's rows in one order (by key digest, byte by byte), or
/// two instances' batches could lock the same rows in opposite orders; and a row's position must lead back to
/// the caller's request.
@Suite("BatchOrder: a batch's requests by digest, and back")
struct BatchOrderTests {
    @Test("sorted by the digests' bytes as unsigned, shorter first on a common prefix; positions lead back")
    func order() throws {
        // Byte values that would sort otherwise as signed, or as text, and digests of other lengths.
        let digests: [[UInt8]] = [[0x80, 0x00], [0x7f, 0xff], [0x00], [0xff], [0x00, 0x01], [0x80], [0x10, 0x00]]
        let order = BatchOrder(Array(digests.indices)) { ByteBuffer(bytes: digests[$0]) }
        let expected: [[UInt8]] = [[0x00], [0x00, 0x01], [0x10, 0x00], [0x7f, 0xff], [0x80], [0x80, 0x00], [0xff]]
        #expect(order.sorted.map { digests[$0] } == expected)
        for position in 1...digests.count {
            let index = try order.index(ofPosition: Int64(position), what: "read")
            #expect(index == order.sorted[position - 1])
        }
        #expect(throws: (any Error).self) { try order.index(ofPosition: 0, what: "read") }
        #expect(throws: (any Error).self) { try order.index(ofPosition: Int64(digests.count + 1), what: "read") }
    }

    @Test("the same requests in any arrival order go out in the same order")
    func sameOrder() {
        var generator = SystemRandomNumberGenerator()
        let digests = (0..<64).map { _ in (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) } }
        let reference = BatchOrder(digests) { ByteBuffer(bytes: $0) }.sorted
        for _ in 0..<5 {
            let shuffled = digests.shuffled(using: &generator)
            #expect(BatchOrder(shuffled) { ByteBuffer(bytes: $0) }.sorted == reference)
        }
    }
}
