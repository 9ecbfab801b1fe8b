extension Duration {
    /// The duration in seconds, as Foundation's `TimeInterval` and URLSession's timeouts count them.
    package var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
