/// Keeps `value` alive so that the optimizer cannot drop the work that produced it.
@inline(never)
public func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

/// Nanoseconds in a `Duration`.
public func nanoseconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) * 1e9 + Double(attoseconds) / 1e9
}

/// Times `body` in `samples` batches of `batch` calls each, after `warmup` untimed calls, and returns the
/// per-call time of every batch in nanoseconds. Batching keeps the clock's own cost (~20 ns) out of
/// sub-microsecond figures. It runs on the caller's executor (`nonisolated(nonsending)`), so that `body`,
/// formed in the caller's context, is called without an executor hop: a hop costs microseconds.
nonisolated(nonsending) public func measure(
    samples: Int, batch: Int, warmup: Int = 100, _ body: () async throws -> Void
) async rethrows -> Stats {
    for _ in 0..<warmup { try await body() }
    var perCall: [Double] = []
    perCall.reserveCapacity(samples)
    let clock = ContinuousClock()
    for _ in 0..<samples {
        let start = clock.now
        for _ in 0..<batch { try await body() }
        perCall.append(nanoseconds(start.duration(to: clock.now)) / Double(batch))
    }
    return Stats(perCall)
}
