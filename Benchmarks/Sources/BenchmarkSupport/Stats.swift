/// Order statistics of a set of samples (nanoseconds, or any unit the caller chose).
public struct Stats: Sendable {
    /// The samples, sorted.
    public let sorted: [Double]

    /// Stats of `samples`; at least one sample is required.
    public init(_ samples: [Double]) {
        precondition(!samples.isEmpty, "a benchmark needs at least one sample")
        sorted = samples.sorted()
    }

    /// The value below which `fraction` of the samples lie (nearest rank).
    public func percentile(_ fraction: Double) -> Double {
        let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
        return sorted[Swift.min(Swift.max(rank, 0), sorted.count - 1)]
    }

    /// The median.
    public var median: Double { percentile(0.5) }
    /// The 99th percentile.
    public var p99: Double { percentile(0.99) }
    /// The smallest sample.
    public var min: Double { sorted[0] }
    /// The largest sample.
    public var max: Double { sorted[sorted.count - 1] }
    /// The median absolute deviation from the median: the spread, robust to outliers.
    public var mad: Double { Stats(sorted.map { abs($0 - median) }).median }
}
