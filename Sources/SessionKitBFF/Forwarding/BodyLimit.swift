import NIOCore

/// Thrown when a ``BodyLimit`` body passes its limit.
struct BodyLimitExceeded: Error {}

/// A body that ends with ``BodyLimitExceeded`` as soon as more than `limit` bytes have passed, so a request or an
/// upstream answer larger than configured is cut off without first being read whole.
struct BodyLimit<Base: AsyncSequence & Sendable>: AsyncSequence, Sendable where Base.Element == ByteBuffer {
    typealias Element = ByteBuffer

    let base: Base
    let limit: Int

    init(_ base: Base, limit: Int) {
        self.base = base
        self.limit = limit
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        let limit: Int
        var seen = 0

        mutating func next() async throws -> ByteBuffer? {
            guard let chunk = try await base.next() else { return nil }
            seen += chunk.readableBytes
            guard seen <= limit else { throw BodyLimitExceeded() }
            return chunk
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), limit: limit)
    }
}
