import NIOCore
import SecureStore

/// The requests of a batched statement in the order it sends them, by key digest (so that every instance meets
/// rows in the same order), and the way back from a row's position to the caller's request.
struct BatchOrder<Request> {
    /// The requests as the statement sends them.
    let sorted: [Request]
    /// For each position in `sorted`, the request's index in the caller's array.
    private let order: [Int]

    init(_ requests: [Request], digest: (Request) -> ByteBuffer) {
        // Each digest copied out once: comparing through `digest` and `ByteBufferView` cost two closure calls and
        // a buffer's retain and release per comparison.
        let keys = requests.map { Array(digest($0).readableBytesView) }
        order = requests.indices.sorted { keys[$0].lexicographicallyPrecedes(keys[$1]) }
        sorted = order.map { requests[$0] }
    }

    /// The caller's index of the request at the 1-based `position` a returned row names; `what` names the
    /// statement ("read", "write") in the error for a position out of range.
    func index(ofPosition position: Int64, what: String) throws(SecureStoreError) -> Int {
        guard position >= 1, position <= sorted.count else {
            throw SecureStoreError(
                code: .corrupted,
                message: "a batched \(what) returned row \(position) of \(sorted.count); run "
                    + "migrate() with this version of SessionKit")
        }
        return order[Int(position) - 1]
    }
}
