extension SessionManager {
    /// Waits until the record moves past `generation` or its lease lapses, and returns the record that showed it.
    /// `epoch` is ``ChangeSignal/epoch`` read before the record that called for the wait was read.
    func waitForOtherRenewal(after generation: UInt64, until deadline: ContinuousClock.Instant, since epoch: Int)
        async throws(SessionKitError) -> SessionRecord
    {
        try await waitForOtherRenewal(until: deadline, since: epoch) { [clock] record in
            record.generation != generation || !(record.renewal?.isActive(at: clock.now()) ?? false)
        }
    }

    /// Waits until the record held in memory or read from the store `endsWait`, and returns it. ``RenewalWait``
    /// decides when to sleep and when to read; an announcement (``storeDidChange()``) ends a sleep early, and one
    /// that brought the record (``storeDidChange(to:)``) ends the wait with it, with nothing read.
    ///
    /// `epoch` is ``ChangeSignal/epoch`` read before the read that called for the wait was sent: a signal that
    /// came while that read was under way ends the first sleep at once. Without it, the wait slept through its
    /// whole safety-net pause, a second: a 1-second tail in `Benchmarks/server.sh`'s storm. (An announced record
    /// that came during a first read is now kept aside and taken as the read ends, when it is newer: the look at
    /// the record held before the first sleep finds it.)
    func waitForOtherRenewal(
        until deadline: ContinuousClock.Instant, since epoch: Int, endsWait: (SessionRecord) -> Bool
    ) async throws(SessionKitError) -> SessionRecord {
        states.publish(.renewing)
        var wait = RenewalWait(
            pollInterval: policy.pollInterval, announced: changes.hasSignalled || coordinator.followsAnnouncements,
            deadline: deadline)
        // Signals before this one have been looked at: the first sleep counts from the caller's read, each later one
        // from just before its look at the record held (an announcement between the look and the sleep ends it).
        var since: Int? = epoch
        while true {
            switch wait.next(now: .now) {
            case .sleep(let limit):
                let epoch = since ?? changes.epoch
                since = nil
                if let known = coordinator.knownRecord(), endsWait(known) { return known }
                let signalled = await changes.wait(upTo: limit, unlessSignalledSince: epoch)
                if Task.isCancelled {
                    throw SessionKitError(code: .cancelled, message: "waiting for the session's renewal was cancelled")
                }
                let known = coordinator.knownRecord()
                if let known, endsWait(known) { return known }
                wait.woke(
                    signalled: signalled, holdsKnownRecord: known != nil,
                    followingAnnouncements: coordinator.followsAnnouncements)
            case .read:
                since = changes.epoch
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
