import Foundation

extension AuthEmulator.Configuration {
    /// Checks the configuration for mistakes that would make the emulator misbehave.
    func validate() throws {
        func fail(_ message: String) -> AuthEmulatorError {
            AuthEmulatorError(code: .invalidConfiguration, message: message)
        }
        if host.isEmpty { throw fail("host must not be empty") }
        if !allowNonLoopbackHost && !Self.isLoopback(host) {
            throw fail(
                "host \(host) is not a loopback address; the emulator publishes its fixture passwords, so it serves "
                    + "127.0.0.1, ::1 or localhost unless allowNonLoopbackHost is set")
        }
        if let port, !(0...65_535).contains(port) { throw fail("port \(port) is out of range") }
        if let publicIssuer, !Self.isDeliverable(publicIssuer) || URL(string: publicIssuer)?.query != nil {
            throw fail("publicIssuer \(publicIssuer) must be an absolute http or https URL without a query")
        }
        let l = lifetimes
        let values = [
            l.accessToken, l.idToken, l.refreshTokenIdle, l.refreshTokenAbsolute, l.authorizationCode, l.deviceCode,
            l.backchannelRequest,
        ]
        if values.contains(where: { !$0.isFinite || $0 <= 0 || $0 > 1e9 }) {
            throw fail("token lifetimes must be positive and at most 1e9 seconds")
        }
        if !(0...3600).contains(l.devicePollInterval) { throw fail("devicePollInterval must be 0...3600 seconds") }
        if !(0...3600).contains(l.backchannelPollInterval) {
            throw fail("backchannelPollInterval must be 0...3600 seconds")
        }
        if !refreshTokenRotation.reuseInterval.isFinite || refreshTokenRotation.reuseInterval < 0 {
            throw fail("reuseInterval must not be negative")
        }
        if !keyRotationOverlap.isFinite || keyRotationOverlap < 0 {
            throw fail("keyRotationOverlap must not be negative")
        }
        if Set(clients.map(\.id)).count != clients.count { throw fail("client ids must be unique") }
        for client in clients where client.signsIDTokensWithSecret && (client.secret?.utf8.count ?? 0) < 32 {
            throw fail("client \(client.id) signs ID tokens with its secret, which must be at least 32 bytes")
        }
        for client in clients {
            if let uri = client.backchannelLogoutURI, !Self.isDeliverable(uri) {
                throw fail("client \(client.id): backchannelLogoutURI must be an absolute http or https URL")
            }
            if let problem = Self.backchannelDeliveryProblem(
                mode: client.backchannelTokenDeliveryMode, endpoint: client.backchannelClientNotificationEndpoint)
            {
                throw fail("client \(client.id): \(problem)")
            }
        }
        for client in clients {
            for grant in client.clientGrants {
                let defined =
                    grant.audience.map { audience in apis.first { $0.identifier == audience }?.scopes }
                    ?? AuthEmulator.API.managementClientScopes
                guard let defined else {
                    throw fail(
                        "client \(client.id): its client grant names \(grant.audience ?? ""), which is not an API")
                }
                if let unknown = grant.scopes.first(where: { !defined.contains($0) }) {
                    throw fail(
                        "client \(client.id): its client grant for \(grant.audience ?? "the Management API") gives "
                            + "\(unknown), which that API does not define (\(defined.joined(separator: " ")))")
                }
            }
        }
        if !backchannelLogoutTimeout.isFinite || backchannelLogoutTimeout <= 0 || backchannelLogoutTimeout > 600 {
            throw fail("backchannelLogoutTimeout must be more than 0 and at most 600 seconds")
        }
        for method in clientAuthenticationMethods where !Self.allClientAuthenticationMethods.contains(method) {
            throw fail(
                "clientAuthenticationMethods: '\(method)' is not one of "
                    + Self.allClientAuthenticationMethods.joined(separator: ", "))
        }
        if Set(users.map(\.id)).count != users.count { throw fail("user ids must be unique") }
        if let autoSignInUser,
            !users.contains(where: { $0.id == autoSignInUser || $0.email.lowercased() == autoSignInUser.lowercased() })
        {
            throw fail("autoSignInUser \(autoSignInUser) is not a configured user")
        }
    }

    /// Whether a Back-Channel Logout URI can be posted to: an absolute `http` or `https` URL with a host.
    static func isDeliverable(_ uri: String) -> Bool {
        guard let components = URLComponents(string: uri), let scheme = components.scheme?.lowercased(),
            let host = components.host, !host.isEmpty
        else { return false }
        return scheme == "http" || scheme == "https"
    }

    /// What is wrong with a client's backchannel token delivery (OpenID CIBA Core 1.0 section 4), or `nil`: the mode
    /// must be poll or ping, a ping client needs a notification endpoint, which must be `https` (or `http` on a
    /// loopback host), and a poll client has none.
    static func backchannelDeliveryProblem(
        mode: AuthEmulator.BackchannelTokenDeliveryMode, endpoint: String?
    ) -> String? {
        guard AuthEmulator.BackchannelTokenDeliveryMode.allSupported.contains(mode) else {
            return "backchannelTokenDeliveryMode '\(mode)' is not supported; use poll or ping (push is not implemented)"
        }
        if mode == .poll {
            guard endpoint == nil else {
                return "backchannelClientNotificationEndpoint is set but backchannelTokenDeliveryMode is poll; set the "
                    + "mode to ping or remove the endpoint"
            }
            return nil
        }
        guard let endpoint else {
            return "backchannelTokenDeliveryMode ping needs a backchannelClientNotificationEndpoint, where the pings go"
        }
        guard let components = URLComponents(string: endpoint), let scheme = components.scheme?.lowercased(),
            let host = components.host, !host.isEmpty, components.fragment == nil
        else {
            return "backchannelClientNotificationEndpoint \(endpoint) must be an absolute https URL without a fragment"
        }
        guard scheme == "https" || (scheme == "http" && isLoopback(host)) else {
            return "backchannelClientNotificationEndpoint \(endpoint) must use https (http only on a loopback host: "
                + "127.0.0.1, ::1 or localhost)"
        }
        return nil
    }

    /// Whether `host` names the loopback interface: `localhost`, `::1` or an address in 127.0.0.0/8.
    static func isLoopback(_ host: String) -> Bool {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        return bare == "localhost" || bare == "::1" || bare.hasPrefix("127.")
    }
}
