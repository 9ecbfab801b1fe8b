import SessionKitSupport
import Synchronization

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

extension ProviderClient {
    /// A DPoP proof for a request to `url` that carries `credentials`' access token (`ath` bound to it), with the
    /// nonce the server at `url` gave last, if any: for the app's own API requests.
    ///
    /// ```swift
    /// let credentials = try await session.credentials(minTTL: 60)
    /// for (name, value) in try await provider.authorizationHeaders(for: credentials, method: "GET", url: url) {
    ///     request.setValue(value, forHTTPHeaderField: name)     // Authorization: DPoP …, DPoP: <proof>
    /// }
    /// ```
    ///
    /// - Throws: ``SessionKitError/Code/invalidConfiguration`` when no ``ProviderConfiguration/dpop`` key is set.
    nonisolated(nonsending) public func proof(for credentials: Credentials, method: String, url: URL)
        async throws(SessionKitError) -> String
    {
        guard let key = configuration.dpop else {
            throw SessionKitError(
                code: .invalidConfiguration,
                message: "no DPoP key is configured; set ProviderConfiguration.dpop to make DPoP proofs")
        }
        return try key.proof(
            method: method, url: url, accessToken: credentials.accessToken, nonce: dpopNonce(for: url),
            now: providerNow)
    }

    /// The headers that authorize a request to `url` with `credentials`: `Authorization: Bearer <token>`, or for a
    /// DPoP-bound token `Authorization: DPoP <token>` and its `DPoP` proof.
    ///
    /// - Throws: ``SessionKitError/Code/signInRequired`` when the token is DPoP-bound and no key is configured
    ///   (it cannot be used without the key it is bound to).
    nonisolated(nonsending) public func authorizationHeaders(for credentials: Credentials, method: String, url: URL)
        async throws(SessionKitError) -> [(name: String, value: String)]
    {
        guard credentials.isDPoPBound else {
            return [("Authorization", "Bearer \(credentials.accessToken.unsafeRawValue)")]
        }
        guard configuration.dpop != nil else { throw Self.missingDPoPKey }
        let proof = try await proof(for: credentials, method: method, url: url)
        return [("Authorization", "DPoP \(credentials.accessToken.unsafeRawValue)"), ("DPoP", proof)]
    }

    /// Remembers the `DPoP-Nonce` a server sent with `response` to a request for `url`, and says whether the
    /// response was the server's demand for one (`use_dpop_nonce`: a 400 from a token endpoint, or a 401 with
    /// `WWW-Authenticate: DPoP error="use_dpop_nonce"` from a resource server), in which case the request should
    /// be sent once more with a new proof.
    @discardableResult
    public nonisolated func learnDPoPNonce(from response: HTTPResponse, for url: URL) -> Bool {
        guard let nonce = response.header("DPoP-Nonce"), !nonce.isEmpty, let origin = Self.origin(of: url) else {
            return false
        }
        dpopNonces.withLock { $0[origin] = nonce }
        switch response.status {
        case 400: return (try? JSONValue(parsing: response.body))?["error"]?.stringValue == "use_dpop_nonce"
        case 401:
            let challenge = response.header("WWW-Authenticate") ?? ""
            return challenge.containsIgnoringASCIICase("DPoP")
                && challenge.contains("use_dpop_nonce")
        default: return false
        }
    }

    /// Makes `nonce` the one proofs for `url`'s server carry, as if that server had sent it: for a caller that
    /// learned it elsewhere (a script that got a `DPoP-Nonce` header and runs `sessionctl token --dpop-nonce`).
    public nonisolated func useDPoPNonce(_ nonce: String, for url: URL) {
        guard let origin = Self.origin(of: url) else { return }
        dpopNonces.withLock { $0[origin] = nonce }
    }

    /// The nonce the server at `url` gave last, if any.
    nonisolated func dpopNonce(for url: URL) -> String? {
        Self.origin(of: url).flatMap { origin in dpopNonces.withLock { $0[origin] } }
    }

    /// Sends `request`, with a DPoP proof when a key is configured, and once more with a new proof when the server
    /// answers that it wants a nonce (the server did not act on the first one).
    func sendWithProof(_ request: HTTPRequest, accessToken: Secret? = nil, endpoint: String, loggedBody: String? = nil)
        async throws(SessionKitError) -> HTTPResponse
    {
        guard let key = configuration.dpop else {
            return try await send(request, endpoint: endpoint, loggedBody: loggedBody)
        }
        var attempt = 0
        while true {
            var signed = request
            let proof = try key.proof(
                method: request.method, url: request.url, accessToken: accessToken, nonce: dpopNonce(for: request.url),
                now: providerNow)
            signed.headers.append(("DPoP", proof))
            let response = try await send(signed, endpoint: endpoint, loggedBody: loggedBody)
            attempt += 1
            guard learnDPoPNonce(from: response, for: request.url), attempt < 2 else { return response }
        }
    }

    static let missingDPoPKey = SessionKitError(
        code: .signInRequired,
        message: "the session's tokens are bound to a DPoP key that this client does not have (DPoP was turned off, "
            + "or the key was lost); sign in again")

    private static func origin(of url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
        return "\(scheme)://\(host):\(url.port ?? (scheme == "https" ? 443 : 80))"
    }
}

extension Credentials {
    /// Whether the access token is bound to a DPoP key (`token_type` DPoP): it is sent as `Authorization: DPoP`
    /// with a proof, never as a bearer token.
    public var isDPoPBound: Bool { tokenType.equalsIgnoringASCIICase("DPoP") }
}
