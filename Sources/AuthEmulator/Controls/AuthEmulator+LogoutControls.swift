public import Foundation

extension AuthEmulator.Controls {
    /// Sets the back-channel logout URI of a client, replacing the configured one, or removes it (`nil`): for a
    /// receiver that learns its port only once it listens. Takes effect for the next delivery.
    /// - Throws: ``AuthEmulatorError/Code/notFound`` for an unknown client,
    ///   ``AuthEmulatorError/Code/invalidConfiguration`` for a URL that is not absolute `http` or `https`.
    public func setBackchannelLogoutURI(_ uri: URL?, forClient clientID: String) async throws {
        try enabled()
        guard core.client(id: clientID) != nil else {
            throw AuthEmulatorError(code: .notFound, message: "No client \(clientID)")
        }
        if let uri, !AuthEmulator.Configuration.isDeliverable(uri.absoluteString) {
            throw AuthEmulatorError(
                code: .invalidConfiguration,
                message: "The back-channel logout URI must be an absolute http or https URL")
        }
        core.backchannel.setURI(uri, forClient: clientID)
    }

    /// Ends a user everywhere, as an administrator would: ends all their SSO sessions (their browsers must sign in
    /// again), revokes all their grants as ``revokeGrants(forUser:)`` does, and sends one logout token naming the
    /// user (`sub`, no `sid`: all their sessions there) to each affected client that has a back-channel logout
    /// URI. Waits for the deliveries, each bounded by the configured timeout.
    /// - Returns: The deliveries made, in client order; failed ones included.
    @discardableResult
    public func endSessions(forUser userID: String) async throws -> [AuthEmulator.BackchannelDelivery] {
        try enabled()
        guard await core.state.user(id: userID) != nil else {
            throw AuthEmulatorError(code: .notFound, message: "No user \(userID)")
        }
        let ended = await core.state.endSessions(ofUser: userID)
        let revoked = await core.state.revokeGrants(userID: userID)
        let clients = Set(revoked.map(\.clientID)).union(ended.flatMap(\.clientIDs))
        return await BackchannelLogout(core: core).userLoggedOut(userID, atClients: clients)
    }

    /// Every Back-Channel Logout delivery since start or the last ``clearBackchannelDeliveries()``, oldest first
    /// (the most recent 1000). Deliveries are finished before the request or control that caused them returns,
    /// so the log is complete once `/oidc/logout` has answered.
    public func backchannelDeliveries() async throws -> [AuthEmulator.BackchannelDelivery] {
        try enabled()
        return core.backchannel.deliveries
    }

    /// Empties the delivery log.
    public func clearBackchannelDeliveries() async throws {
        try enabled()
        core.backchannel.clearLog()
    }

    /// Sends one logout token to a client's back-channel logout URI now, without a browser or a session: for
    /// testing a receiver. `subject` and `sid` are sent as given (any value, or neither, as a misbehaving provider
    /// might), and `alteration` breaks the token in one chosen way.
    /// - Returns: The delivery, also added to the log.
    /// - Throws: ``AuthEmulatorError/Code/notFound`` when the client is unknown or has no back-channel logout URI;
    ///   ``AuthEmulatorError/Code/signing`` when the token could not be signed.
    @discardableResult
    public func sendLogoutToken(
        toClient clientID: String,
        subject: String?,
        sid: String?,
        altering alteration: AuthEmulator.LogoutTokenAlteration = .none
    ) async throws -> AuthEmulator.BackchannelDelivery {
        try enabled()
        guard core.client(id: clientID) != nil else {
            throw AuthEmulatorError(code: .notFound, message: "No client \(clientID)")
        }
        guard core.backchannel.uri(forClient: clientID) != nil else {
            throw AuthEmulatorError(
                code: .notFound,
                message: "Client \(clientID) has no back-channel logout URI; set one with setBackchannelLogoutURI")
        }
        let message = LogoutMessage(clientID: clientID, subject: subject, sid: sid, alteration: alteration)
        guard let delivery = await BackchannelLogout(core: core).deliver([message]).first else {
            throw AuthEmulatorError(code: .signing, message: "The logout token could not be signed")
        }
        return delivery
    }
}
