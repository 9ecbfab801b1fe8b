#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

extension ProviderClient {
    /// What a pushed sign-in's URL repeats with ``PushedAuthorization/repeatingOpenIDParameters()``.
    static let openIDParameters: Set<String> = ["response_type", "scope", "redirect_uri", "prompt"]

    /// Builds an authorization-code request with PKCE (S256), a fresh `state` and `nonce`.
    ///
    /// With pushed authorization (``ProviderConfiguration/pushedAuthorization``, or a provider whose discovery
    /// requires it) the parameters are posted to the provider first and the URL carries only `client_id` and the
    /// `request_uri` it answered (RFC 9126), and `response_type`, `scope`, `redirect_uri` and any `prompt` as well with
    /// ``PushedAuthorization/repeatingOpenIDParameters()``; open it promptly, since a `request_uri` lasts a minute or
    /// so. A caller that cannot say when the browser will come (a link the user copies) passes `deferringPush` and
    /// pushes when it does, with ``pushed(_:)``.
    ///
    /// - Parameters:
    ///   - redirectURI: Where the provider sends the browser back, such as `http://127.0.0.1:PORT/callback`.
    ///   - prompt: `login`, `none`, `consent`..., passed through.
    ///   - maxAge: The longest acceptable time since the user last authenticated; the ID token's
    ///     `auth_time` is then checked.
    ///   - deferringPush: Build the request with every parameter in its URL even when a push is due, for
    ///     ``pushed(_:)`` to push later; such a URL is not for the browser where the provider requires pushes.
    /// - Throws: ``SessionKitError``; for a pushed request, a refusal by the pushed authorization request endpoint
    ///   (``SessionKitError/Code/providerError`` with its ``SessionKitError/oauthError``, such as `invalid_client`)
    ///   or its failure (retryable codes). Nothing is stored either way.
    public func authorizationRequest(
        redirectURI: URL,
        scope: String? = nil,
        audience: String? = nil,
        prompt: String? = nil,
        maxAge: TimeInterval? = nil,
        additionalParameters: [String: String] = [:],
        deferringPush: Bool = false
    ) async throws(SessionKitError) -> AuthorizationRequest {
        let metadata = try await metadata()
        let endpoint = try metadata.endpoint(.authorization)
        // Asked first, so that a push that cannot be made fails before anything else is done.
        let pushEndpoint = try pushedAuthorizationEndpoint(in: metadata)
        let verifier = PKCE.randomToken()
        let state = PKCE.randomToken(bytes: 16)
        let nonce = PKCE.randomToken(bytes: 16)
        let requestedScope = try await requestedScope(scope)
        var items = [
            URLQueryItem(name: "response_type", value: "code"),
            URLQueryItem(name: "client_id", value: configuration.clientID),
            URLQueryItem(name: "redirect_uri", value: redirectURI.absoluteString),
            URLQueryItem(name: "scope", value: requestedScope),
            URLQueryItem(name: "state", value: state),
            URLQueryItem(name: "nonce", value: nonce),
            URLQueryItem(name: "code_challenge", value: PKCE.challenge(for: verifier)),
            URLQueryItem(name: "code_challenge_method", value: "S256"),
        ]
        if let audience = audience ?? configuration.audience {
            items.append(URLQueryItem(name: "audience", value: audience))
        }
        if let prompt { items.append(URLQueryItem(name: "prompt", value: prompt)) }
        if let maxAge {
            guard maxAge.isFinite, (0...1e12).contains(maxAge) else {
                throw SessionKitError(
                    code: .invalidInput, message: "maxAge (\(maxAge)) must be a number of seconds from 0 to 1e12")
            }
            items.append(URLQueryItem(name: "max_age", value: String(Int(maxAge))))
        }
        items += additionalParameters.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        let url =
            if let pushEndpoint, !deferringPush {
                try await pushedURL(items, to: pushEndpoint, endpoint: endpoint)
            } else {
                try Self.authorizationURL(endpoint, items)
            }
        return AuthorizationRequest(
            url: url, redirectURI: redirectURI, state: state, nonce: nonce, codeVerifier: Secret(verifier),
            scope: requestedScope, maxAge: maxAge)
    }

    /// `request` as the browser should open it now: when a push is due (as for
    /// ``authorizationRequest(redirectURI:scope:audience:prompt:maxAge:additionalParameters:deferringPush:)``), its
    /// parameters are pushed to the provider and the URL carries the fresh `request_uri` instead; otherwise it is
    /// returned as it is. Call it for a request built with `deferringPush` when the browser arrives, so that the
    /// short-lived `request_uri` cannot expire while the link waits.
    ///
    /// - Throws: what a pushed ``authorizationRequest(redirectURI:scope:audience:prompt:maxAge:additionalParameters:deferringPush:)``
    ///   throws; ``SessionKitError/Code/invalidInput`` for a request that was pushed already.
    public func pushed(_ request: AuthorizationRequest) async throws(SessionKitError) -> AuthorizationRequest {
        let metadata = try await metadata()
        guard let pushEndpoint = try pushedAuthorizationEndpoint(in: metadata) else { return request }
        let endpoint = try metadata.endpoint(.authorization)
        guard request.requestURI == nil,
            let all = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems
        else {
            throw SessionKitError(
                code: .invalidInput,
                message: "the authorization request was pushed already; build it with deferringPush: true to push "
                    + "it later")
        }
        // The request's own parameters follow those that the endpoint's URL carries itself.
        let existing = URLComponents(url: endpoint, resolvingAgainstBaseURL: false)?.queryItems?.count ?? 0
        let url = try await pushedURL(Array(all.dropFirst(existing)), to: pushEndpoint, endpoint: endpoint)
        return AuthorizationRequest(
            url: url, redirectURI: request.redirectURI, state: request.state, nonce: request.nonce,
            codeVerifier: request.codeVerifier, scope: request.scope, maxAge: request.maxAge)
    }

    /// Pushes `items` to `pushEndpoint` and returns the browser's URL at `endpoint`: `client_id` and the
    /// `request_uri` answered, and the OpenID parameters when the configuration repeats them.
    private func pushedURL(_ items: [URLQueryItem], to pushEndpoint: URL, endpoint: URL) async throws(SessionKitError)
        -> URL
    {
        let requestURI = try await pushAuthorizationRequest(
            items.filter { $0.name != "client_id" }.map { ($0.name, $0.value ?? "") }, to: pushEndpoint)
        let repeated = configuration.pushedAuthorization.repeatsOpenIDParameters ? Self.openIDParameters : []
        let carried =
            [
                URLQueryItem(name: "client_id", value: configuration.clientID),
                URLQueryItem(name: "request_uri", value: requestURI),
            ] + items.filter { repeated.contains($0.name) }
        return try Self.authorizationURL(endpoint, carried)
    }

    /// The authorization endpoint with `items` after its own query.
    private static func authorizationURL(_ endpoint: URL, _ items: [URLQueryItem]) throws(SessionKitError) -> URL {
        guard var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false) else {
            throw SessionKitError(code: .invalidConfiguration, message: "the authorization endpoint is not a valid URL")
        }
        components.queryItems = (components.queryItems ?? []) + items
        // `+` is legal in a query but many servers read it as a space; encode it (in the query only). The URL
        // is parsed from the text, never assigned to a part of URLComponents, which traps on text it refuses.
        var text = components.string ?? ""
        if let mark = text.firstIndex(of: "?") {
            text = String(text[..<mark]) + String(text[mark...]).replacing("+", with: "%2B")
        }
        guard let url = URL(string: text) else {
            throw SessionKitError(
                code: .invalidConfiguration, message: "the authorization endpoint cannot carry a query")
        }
        return url
    }

    /// Exchanges the code from `callback` for credentials, checking `state`, PKCE and the ID token's
    /// `nonce` (and `auth_time` when `max_age` was sent).
    public func exchange(callback: URL, for request: AuthorizationRequest) async throws(SessionKitError) -> Credentials
    {
        let code: Secret
        do {
            code = try request.code(fromCallback: callback)
        } catch {
            throw await explainingScope(error, asked: request.scope)
        }
        let parameters = [
            ("grant_type", "authorization_code"),
            ("code", code.unsafeRawValue),
            ("redirect_uri", request.redirectURI.absoluteString),
            ("code_verifier", request.codeVerifier.unsafeRawValue),
        ]
        return try await tokenRequest(
            parameters,
            expecting: .init(
                requireIDToken: request.scope.hasScope("openid"), nonce: request.nonce, maxAge: request.maxAge)
        )
    }
}
