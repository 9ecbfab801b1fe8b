extension SessionManager {
    /// Waits until the record moves past `generation` or its lease lapses, and returns the record that showed it.
    func waitForOtherRenewal(after generation: UInt64, until deadline: ContinuousClock.Instant)
        async throws(SessionKitError) -> SessionRecord
    {
        try await waitForOtherRenewal(until: deadline) { [clock] record in
            record.generation != generation || !(record.renewal?.isActive(at: clock.now()) ?? false)
        }
    }

    /// Waits until the record held in memory or read from the store `endsWait`, and returns it. ``RenewalWait``
    /// decides when to sleep and when to read; an announcement (``storeDidChange()``) ends a sleep early, and one
    /// that brought the record (``storeDidChange(to:)``) ends the wait with it, with nothing read.
    func waitForOtherRenewal(
        until deadline: ContinuousClock.Instant, endsWait: (SessionRecord) -> Bool
    ) async throws(SessionKitError) -> SessionRecord {
        states.publish(.renewing)
        var wait = RenewalWait(
            pollInterval: policy.pollInterval, announced: changes.hasSignalled || coordinator.followsAnnouncements,
            deadline: deadline)
        while true {
            switch wait.next(now: .now) {
            case .sleep(let limit):
                if let known = coordinator.knownRecord(), endsWait(known) { return known }
                let signalled = await changes.wait(upTo: limit)
                if Task.isCancelled {
                    throw SessionKitError(code: .cancelled, message: "waiting for the session's renewal was cancelled")
                }
                let known = coordinator.knownRecord()
                if let known, endsWait(known) { return known }
                wait.woke(
                    signalled: signalled, holdsKnownRecord: known != nil,
                    followingAnnouncements: coordinator.followsAnnouncements)
            case .read:
                let record = try await loadRecord()
                if endsWait(record) { return record }
            case .timedOut:
                throw SessionKitError(
                    code: .timeout,
                    message: "another process has been renewing this session for too long; the session is kept, "
                        + "try again")
            }
        }
    }
}
