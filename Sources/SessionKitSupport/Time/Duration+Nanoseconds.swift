extension Duration {
    /// This duration in whole nanoseconds, clamped to 0...`Int64.max` (about 292 years) instead of overflowing:
    /// for the timers of the NIO-based targets (`TimeAmount.nanoseconds(_:)`), which trap on overflow.
    package var clampedNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        // Both components carry the duration's sign (-0.5 s is 0 s and -5e17 as): either below zero is a past
        // deadline.
        guard seconds >= 0, attoseconds >= 0 else { return 0 }
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return .max }
        let (total, overflowAgain) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
        return overflowAgain ? .max : total
    }
}
