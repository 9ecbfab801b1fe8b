public import Foundation

extension AuthEmulator.Controls {
    /// Sets a client's Shared Signals receiver, the push endpoint (RFC 8935) its security events go to, or removes
    /// it (`nil`): the stream a provider's administrator would configure for the client.
    /// - Throws: ``AuthEmulatorError/Code/notFound`` for an unknown client,
    ///   ``AuthEmulatorError/Code/invalidConfiguration`` for a URL that is not absolute `http` or `https`.
    public func setSecurityEventReceiver(_ uri: URL?, forClient clientID: String) async throws {
        try enabled()
        guard core.client(id: clientID) != nil else {
            throw AuthEmulatorError(code: .notFound, message: "No client \(clientID)")
        }
        if let uri, !AuthEmulator.Configuration.isDeliverable(uri.absoluteString) {
            throw AuthEmulatorError(
                code: .invalidConfiguration, message: "The receiver must be an absolute http or https URL")
        }
        core.securityEvents.setURI(uri, forClient: clientID)
    }

    /// Pushes one Security Event Token of `eventType` (``AuthEmulator/SecurityEventType``, or any URI) about the
    /// user `subject` (`sub_id` in the `iss_sub` format) to the client's receiver now, misbehaving as `fault` says,
    /// and waits for the answer (each bounded by the back-channel logout timeout).
    /// - Returns: The deliveries made, also added to the log.
    /// - Throws: ``AuthEmulatorError/Code/notFound`` when the client is unknown or has no receiver;
    ///   ``AuthEmulatorError/Code/signing`` when the token could not be signed.
    @discardableResult
    public func sendSecurityEvent(
        _ eventType: String, subject: String, toClient clientID: String,
        fault: AuthEmulator.SecurityEventFault = .none
    ) async throws -> [AuthEmulator.SecurityEventDelivery] {
        try enabled()
        guard let client = core.client(id: clientID) else {
            throw AuthEmulatorError(code: .notFound, message: "No client \(clientID)")
        }
        guard let uri = core.securityEvents.uri(forClient: clientID) else {
            throw AuthEmulatorError(
                code: .notFound,
                message: "Client \(clientID) has no security event receiver; set one with setSecurityEventReceiver")
        }
        do {
            return try await SecurityEventTransmitter(core: core).send(
                eventType, subject: subject, to: client, at: uri, fault: fault)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw AuthEmulatorError(code: .signing, message: "The security event token could not be signed")
        }
    }

    /// Every security event delivery since start, oldest first (the most recent 1000).
    public func securityEventDeliveries() async throws -> [AuthEmulator.SecurityEventDelivery] {
        try enabled()
        return core.securityEvents.deliveries
    }
}
