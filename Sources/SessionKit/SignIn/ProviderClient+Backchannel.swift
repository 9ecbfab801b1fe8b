import SessionKitSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension ProviderClient {
    /// Asks the provider to authenticate a user on their own device (OpenID CIBA Core 1.0): show the user
    /// ``BackchannelAuthentication/bindingMessage``, then call ``pollBackchannelSignIn(_:onPending:)``.
    ///
    /// The request goes to the provider's `backchannel_authentication_endpoint` (or
    /// ``EndpointOverrides/backchannelAuthentication``) with the client's authentication as at the token endpoint, so
    /// the client must be confidential.
    ///
    /// Without `pingReceiver` the request is in poll mode. With one, it is in ping mode (CIBA Core section 10.2): the
    /// client must be registered at the provider for ping with a notification endpoint that the app serves and
    /// routes to `pingReceiver`; SessionKit chooses the request's `client_notification_token` (32 random bytes) and
    /// registers it there, and the provider's ping ends the poll's wait at once. The poll goes on at `interval`
    /// meanwhile, so a lost ping only costs time. Push mode is not supported.
    ///
    /// ```swift
    /// let request = try await provider.backchannelSignIn(loginHint: email, pingReceiver: pings)
    /// // In the app's server, for POST /ciba/notify:
    /// //     status = pings.receive(authorization: authorizationHeader, body: bodyBytes)
    /// let credentials = try await provider.pollBackchannelSignIn(request)
    /// ```
    ///
    /// - Parameters:
    ///   - loginHint: Who is to approve, as the provider knows them (an email address, a user id).
    ///   - bindingMessage: A short text shown both here and on the user's device, so that they approve this sign-in
    ///     and no other (providers allow letters, digits, spaces and a little punctuation, up to about 64 characters).
    ///   - scope: The scope to ask for; ``ProviderConfiguration/scope`` when `nil`. It must contain `openid`.
    ///   - audience: The API to ask an access token for; ``ProviderConfiguration/audience`` when `nil`.
    ///   - pingReceiver: Where the app hands the provider's pings, for ping mode; `nil` (the default) polls only.
    /// - Throws: ``SessionKitError/Code/invalidConfiguration`` without a client secret, without the endpoint, when
    ///   `pingReceiver` is given and the provider does not list `ping` in `backchannel_token_delivery_modes_supported`,
    ///   or when it is not and the provider lists no `poll`; ``SessionKitError/Code/providerError`` when the provider
    ///   refuses (for `unknown_user_id`, `invalid_binding_message`, `unauthorized_client`, with what to change; an
    ///   `invalid_request` when the client is registered for the other mode). Nothing is stored.
    public func backchannelSignIn(
        loginHint: String,
        bindingMessage: String? = nil,
        scope: String? = nil,
        audience: String? = nil,
        pingReceiver: BackchannelPingReceiver? = nil
    ) async throws(SessionKitError) -> BackchannelAuthentication {
        guard configuration.clientSecret != nil else {
            throw SessionKitError(
                code: .invalidConfiguration,
                message: "backchannel authentication needs a confidential client: set the client's secret "
                    + "(ProviderConfiguration.clientSecret); nothing was sent")
        }
        let metadata = try await metadata()
        let modes = metadata.backchannelTokenDeliveryModes
        if pingReceiver != nil, modes?.contains("ping") != true {
            let listed = modes.map { "lists only \($0.joined(separator: " and "))" } ?? "lists none"
            throw SessionKitError(
                code: .invalidConfiguration,
                message: "a ping receiver was given, but the provider's backchannel_token_delivery_modes_supported "
                    + "\(listed), not ping; call backchannelSignIn without pingReceiver to poll. Nothing was sent")
        }
        if pingReceiver == nil, let modes, !modes.contains("poll") {
            let pingAdvice =
                modes.contains("ping")
                ? "pass a BackchannelPingReceiver (pingReceiver:) that the app's server hands the pings to, or " : ""
            throw SessionKitError(
                code: .invalidConfiguration,
                message: "the provider delivers backchannel authentications only by "
                    + "\(modes.joined(separator: " or ")), and without a ping receiver SessionKit only polls; "
                    + "\(pingAdvice)sign in another way (a device code or the browser)")
        }
        let url = try metadata.endpoint(.backchannelAuthentication)
        var parameters = try await scopeParameters(scope: scope, audience: audience)
        parameters.append(("login_hint", loginHint))
        if let bindingMessage { parameters.append(("binding_message", bindingMessage)) }
        var registration: BackchannelPingRegistration?
        if let pingReceiver {
            let token = PKCE.randomToken(bytes: 32)
            parameters.append(("client_notification_token", token))
            registration = pingReceiver.register(token: token, now: clock.now())
        }
        do {
            return try await requestBackchannelAuthentication(
                parameters, at: url, bindingMessage: bindingMessage, ping: registration)
        } catch {
            registration?.forget()
            throw error
        }
    }

    /// Sends the backchannel authentication request and reads the provider's answer; in ping mode, completes the
    /// registration with the `auth_req_id`.
    private func requestBackchannelAuthentication(
        _ parameters: [(String, String)], at url: URL, bindingMessage: String?, ping: BackchannelPingRegistration?
    ) async throws(SessionKitError) -> BackchannelAuthentication {
        let endpoint = "backchannel authentication endpoint"
        let response = try await postForm(parameters, to: url, endpoint: endpoint)
        guard response.status == 200 else {
            throw Self.backchannelRefused(
                await explainingScope(providerFailure(response, endpoint: endpoint), asked: parameters[0].1))
        }
        let object = (try? JSONValue(parsing: response.body))?.objectValue
        guard let id = object?["auth_req_id"]?.stringValue, !id.isEmpty, id.utf8.count <= 4096,
            let expiresIn = object?["expires_in"]?.doubleValue
        else {
            throw SessionKitError(
                code: .invalidResponse,
                message: "the \(endpoint) answered without a usable auth_req_id or expires_in; try again, and check "
                    + "the endpoint configuration if it persists",
                httpStatus: response.status)
        }
        let interval = object?["interval"]?.doubleValue ?? 5
        // Numbers from the network become sleeps and deadlines: refuse any that cannot be one.
        guard expiresIn.isFinite, expiresIn > 0, expiresIn <= 86_400, interval.isFinite, (0...600).contains(interval)
        else {
            throw SessionKitError(
                code: .invalidResponse,
                message: "the \(endpoint)'s expires_in (1 s to 1 day) or interval (0 to 600 s) is out of range; the "
                    + "provider sent something no client can wait for")
        }
        let expiresAt = clock.now().addingTimeInterval(expiresIn)
        ping?.activate(authReqID: id, expiresAt: expiresAt)
        return BackchannelAuthentication(
            bindingMessage: bindingMessage,
            expiresAt: expiresAt,
            interval: interval,
            authReqID: Secret(id),
            ping: ping)
    }

    /// Polls the token endpoint (`grant_type=urn:openid:params:grant-type:ciba`) until the user approves or denies on
    /// their device, honouring `interval` and `slow_down` (which adds 5 s) as the device grant does.
    ///
    /// In ping mode (``BackchannelAuthentication/receivesPings``), a ping accepted by the
    /// ``BackchannelPingReceiver`` ends the wait at once and the token endpoint is called then; without one, the poll
    /// comes at `interval` as in poll mode. Once the provider gave its final answer (tokens or a refusal), the
    /// receiver refuses further pings for the request.
    ///
    /// A retryable error (``SessionKitError/isRetryable``: the network, a 5xx) leaves the request as it was: poll it
    /// again while it lasts. A stored session is never touched: store the returned credentials yourself.
    ///
    /// Any other refusal stops the polling at once: `invalid_grant` (a request unknown to the provider, spent, or
    /// another client's), and `invalid_request`, which some providers answer instead of `authorization_pending`
    /// while the user has not approved yet (idpyoidc 5.0.0 does).
    ///
    /// - Parameters:
    ///   - authentication: The request ``backchannelSignIn(loginHint:bindingMessage:scope:audience:pingReceiver:)``
    ///     returned.
    ///   - onPending: Called after each `authorization_pending`, for a spinner.
    /// - Throws: ``SessionKitError/Code/providerError`` with `access_denied` (the user refused) or `expired_token`
    ///   (nobody approved in time), or `invalid_grant` or `invalid_request` (the poll itself refused): start a new
    ///   request.
    public func pollBackchannelSignIn(
        _ authentication: BackchannelAuthentication,
        onPending: @Sendable () -> Void = {}
    ) async throws(SessionKitError) -> Credentials {
        let parameters = [
            ("grant_type", "urn:openid:params:grant-type:ciba"),
            ("auth_req_id", authentication.authReqID.unsafeRawValue),
        ]
        do {
            let credentials = try await pollTokenEndpoint(
                parameters, interval: authentication.interval, flow: "backchannel sign-in",
                wakeUp: authentication.ping?.signal, onPending: onPending)
            authentication.ping?.forget()
            return credentials
        } catch {
            if error.code == .providerError { authentication.ping?.forget() }
            throw Self.backchannelPollRefused(error)
        }
    }

    /// A poll refused with an error that is neither a wait nor the user's answer, said in words; others as
    /// ``backchannelRefused(_:)`` says them.
    static func backchannelPollRefused(_ error: SessionKitError) -> SessionKitError {
        guard error.code == .providerError, let oauthError = error.oauthError,
            oauthError == "invalid_grant" || oauthError == "invalid_request"
        else { return backchannelRefused(error) }
        return SessionKitError(
            code: error.code,
            message: "backchannel sign-in failed (\(oauthError)): the provider refused the poll instead of answering "
                + "authorization_pending or the tokens, so polling stopped. Either the request is unknown to it or "
                + "spent, or the provider refuses a poll until the user has approved: start a new sign-in (and, with "
                + "such a provider, poll once the user has approved). Nothing was stored, and a stored session is kept",
            oauthError: error.oauthError, oauthErrorDescription: error.oauthErrorDescription,
            httpStatus: error.httpStatus, underlyingError: error)
    }

    /// A refusal of a backchannel authentication, said in its own words with what to do next; other errors as they
    /// are.
    static func backchannelRefused(_ error: SessionKitError) -> SessionKitError {
        guard error.code == .providerError, let oauthError = error.oauthError else { return error }
        let advice: String
        switch oauthError {
        case "access_denied": advice = "the user denied the sign-in on their device"
        case "expired_token": advice = "nobody approved the sign-in in time; start a new one"
        case "unknown_user_id": advice = "the provider knows no user by that login hint; check it"
        case "invalid_binding_message":
            advice = "the provider cannot show that binding message; use a shorter one of letters, digits and spaces"
        case "unauthorized_client", "invalid_client":
            advice =
                "the client may not use backchannel authentication: allow the CIBA grant for it at the provider and "
                + "check its secret"
        default: return error
        }
        return SessionKitError(
            code: error.code,
            message: "backchannel sign-in failed (\(oauthError)): \(advice). Nothing was stored, and a stored session "
                + "is kept",
            oauthError: error.oauthError, oauthErrorDescription: error.oauthErrorDescription,
            httpStatus: error.httpStatus, underlyingError: error)
    }
}
