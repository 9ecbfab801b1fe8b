import NIOCore

extension TimeAmount {
    /// `duration` as a NIO time amount, clamped to 0...(about 292 years) instead of overflowing.
    static func clamped(_ duration: Duration) -> TimeAmount {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return .zero }
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return .nanoseconds(.max) }
        let (total, overflowAgain) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
        return .nanoseconds(overflowAgain ? .max : total)
    }
}
