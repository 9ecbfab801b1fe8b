public import Foundation

extension AuthEmulator.Controls {
    /// Approves the newest pending backchannel authentication request (OpenID CIBA) for a user, as if they accepted
    /// it on their device; with `bindingMessage`, only a request that showed that message. A ping-mode request's
    /// client is pinged before this returns (each ping bounded by the back-channel logout timeout), misbehaving as
    /// `pingFault` says.
    /// - Throws: ``AuthEmulatorError/Code/notFound`` for an unknown user or when no such request is pending.
    public func approveBackchannelAuthentication(
        forUser userID: String, bindingMessage: String? = nil, pingFault: AuthEmulator.BackchannelPingFault = .none
    ) async throws {
        try enabled()
        guard await core.state.user(id: userID) != nil else {
            throw AuthEmulatorError(code: .notFound, message: "No user \(userID)")
        }
        let now = core.clock.now
        guard let decided = core.ciba.decide(userID: userID, bindingMessage: bindingMessage, approvedAt: now, now: now)
        else {
            throw AuthEmulatorError(code: .notFound, message: "No pending backchannel authentication for \(userID)")
        }
        await BackchannelPing(core: core).notify(decided, fault: pingFault)
    }

    /// Denies the newest pending backchannel authentication request for a user (its next poll gets `access_denied`);
    /// a ping-mode request's client is pinged as on approval.
    /// - Throws: ``AuthEmulatorError/Code/notFound`` when no such request is pending.
    public func denyBackchannelAuthentication(
        forUser userID: String, bindingMessage: String? = nil, pingFault: AuthEmulator.BackchannelPingFault = .none
    ) async throws {
        try enabled()
        guard
            let decided = core.ciba.decide(
                userID: userID, bindingMessage: bindingMessage, approvedAt: nil, now: core.clock.now)
        else {
            throw AuthEmulatorError(code: .notFound, message: "No pending backchannel authentication for \(userID)")
        }
        await BackchannelPing(core: core).notify(decided, fault: pingFault)
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

    /// Registers a client for CIBA ping mode with `endpoint` as its `backchannel_client_notification_endpoint`,
    /// replacing the configured one, or for poll mode (`nil`): for a receiver that learns its port only once it
    /// listens. Takes effect for the next `/bc-authorize` request (whose `client_notification_token` it then
    /// requires or refuses) and the next ping.
    /// - Throws: ``AuthEmulatorError/Code/notFound`` for an unknown client,
    ///   ``AuthEmulatorError/Code/invalidConfiguration`` for a URL that is not `https` (or `http` on loopback).
    public func setBackchannelNotificationEndpoint(_ endpoint: URL?, forClient clientID: String) async throws {
        try enabled()
        guard core.client(id: clientID) != nil else {
            throw AuthEmulatorError(code: .notFound, message: "No client \(clientID)")
        }
        if let endpoint,
            let problem = AuthEmulator.Configuration.backchannelDeliveryProblem(
                mode: .ping, endpoint: endpoint.absoluteString)
        {
            throw AuthEmulatorError(code: .invalidConfiguration, message: "Client \(clientID): \(problem)")
        }
        core.backchannelPings.setURI(endpoint, forClient: clientID)
    }

    /// Every CIBA ping since start, oldest first (the most recent 1000). Pings are finished before the control that
    /// caused them returns.
    public func backchannelPingDeliveries() async throws -> [AuthEmulator.BackchannelPingDelivery] {
        try enabled()
        return core.backchannelPings.deliveries
    }
}
