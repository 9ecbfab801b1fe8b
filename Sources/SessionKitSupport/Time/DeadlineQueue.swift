/// A binary min-heap of (deadline, entry id): ``Deadlines``' entries by when they fall due.
struct DeadlineQueue {
    private var heap: [(deadline: ContinuousClock.Instant, id: UInt64)] = []

    init() {}

    /// A queue of `items`, built in O(n).
    init(_ items: some Sequence<(ContinuousClock.Instant, UInt64)>) {
        heap = items.map { (deadline: $0.0, id: $0.1) }
        for index in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
    }

    var count: Int { heap.count }

    /// The earliest deadline and its entry, or `nil` when the queue is empty.
    var first: (deadline: ContinuousClock.Instant, id: UInt64)? { heap.first }

    mutating func insert(_ deadline: ContinuousClock.Instant, id: UInt64) {
        heap.append((deadline, id))
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard Self.precedes(heap[child], heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes the earliest entry; the queue must not be empty.
    mutating func removeFirst() {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        siftDown(0)
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < heap.count else { return }
            let right = left + 1
            let child = right < heap.count && Self.precedes(heap[right], heap[left]) ? right : left
            guard Self.precedes(heap[child], heap[parent]) else { return }
            heap.swapAt(child, parent)
            parent = child
        }
    }

    /// Earlier deadline first; of two at the same instant, the one scheduled first.
    private static func precedes(
        _ a: (deadline: ContinuousClock.Instant, id: UInt64), _ b: (deadline: ContinuousClock.Instant, id: UInt64)
    ) -> Bool {
        a.deadline < b.deadline || (a.deadline == b.deadline && a.id < b.id)
    }
}
