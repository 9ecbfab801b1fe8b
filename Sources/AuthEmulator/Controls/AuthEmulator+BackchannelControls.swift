extension AuthEmulator.Controls {
    /// Approves the newest pending backchannel authentication request (OpenID CIBA) for a user, as if they accepted
    /// it on their device; with `bindingMessage`, only a request that showed that message.
    /// - Throws: ``AuthEmulatorError/Code/notFound`` for an unknown user or when no such request is pending.
    public func approveBackchannelAuthentication(forUser userID: String, bindingMessage: String? = nil) async throws {
        try enabled()
        guard await core.state.user(id: userID) != nil else {
            throw AuthEmulatorError(code: .notFound, message: "No user \(userID)")
        }
        let now = core.clock.now
        guard core.ciba.decide(userID: userID, bindingMessage: bindingMessage, approvedAt: now, now: now) else {
            throw AuthEmulatorError(code: .notFound, message: "No pending backchannel authentication for \(userID)")
        }
    }

    /// Denies the newest pending backchannel authentication request for a user (its next poll gets `access_denied`).
    /// - Throws: ``AuthEmulatorError/Code/notFound`` when no such request is pending.
    public func denyBackchannelAuthentication(forUser userID: String, bindingMessage: String? = nil) async throws {
        try enabled()
        guard core.ciba.decide(userID: userID, bindingMessage: bindingMessage, approvedAt: nil, now: core.clock.now)
        else {
            throw AuthEmulatorError(code: .notFound, message: "No pending backchannel authentication for \(userID)")
        }
    }

    /// Makes the next poll of the user's newest backchannel authentication request answer `slow_down` (and its
    /// interval grow by 5 s), as a provider under load does whatever the client's timing.
    /// - Throws: ``AuthEmulatorError/Code/notFound`` when the user has no unexpired request.
    public func slowDownBackchannelPolling(forUser userID: String) async throws {
        try enabled()
        guard core.ciba.slowDownNextPoll(userID: userID, now: core.clock.now) else {
            throw AuthEmulatorError(code: .notFound, message: "No backchannel authentication for \(userID)")
        }
    }
}
