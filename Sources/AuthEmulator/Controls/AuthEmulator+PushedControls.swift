extension AuthEmulator.Controls {
    /// Makes `/authorize` take a client's sign-ins only through pushed authorization requests (RFC 9126), or not,
    /// replacing its configured ``AuthEmulator/Client/requiresPushedAuthorizationRequests``. Takes effect for the next
    /// request; discovery's `require_pushed_authorization_requests` is `true` while any client requires it.
    /// - Throws: ``AuthEmulatorError/Code/notFound`` for an unknown client.
    public func setPushedAuthorizationRequired(_ required: Bool, forClient clientID: String) async throws {
        try enabled()
        guard core.client(id: clientID) != nil else {
            throw AuthEmulatorError(code: .notFound, message: "No client \(clientID)")
        }
        core.pushed.setRequired(required, forClient: clientID)
    }
}
