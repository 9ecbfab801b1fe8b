import Foundation

/// A validated `/authorize` request (OIDC Core §3.1.2.1 with PKCE, RFC 7636).
///
/// Validation happens in two stages, as the specs require: a bad `client_id` or `redirect_uri` is shown on an
/// error page and never redirected to; every later error is redirected to the (now trusted) `redirect_uri`.
struct AuthorizeRequest: Sendable {
    var client: AuthEmulator.Client
    var redirectURI: String
    var state: String?
    var nonce: String?
    var scope: String?
    var audience: String?
    var codeChallenge: String?
    var prompt: Set<String>
    var maxAge: Int?
    /// The authentication context classes asked for (`acr_values`), most preferred first.
    var acrValues: [String] = []
    /// The `request_uri` the parameters were pushed under (RFC 9126), used up when the browser is sent back.
    var requestURI: String?
    /// The thumbprint of the DPoP key the request was pushed with, which the code is bound to.
    var dpopJKT: String?

    /// The parameters carried through the sign-in form as hidden fields.
    static let carriedParameters = [
        "client_id", "redirect_uri", "response_type", "scope", "state", "nonce", "audience", "code_challenge",
        "code_challenge_method", "prompt", "max_age", "acr_values", "request_uri",
    ]

    /// A failure: either shown on a page (untrusted redirect) or redirected to the client.
    enum Failure: Error {
        case page(String)
        case redirect(OAuthError, redirectURI: String, state: String?)
    }

    static func parse(_ p: RequestParameters, core: EmulatorCore) throws(Failure) -> AuthorizeRequest {
        guard let client = core.client(id: p["client_id"]) else {
            throw .page("Unknown client_id. Check the client_id parameter against the emulator's clients.")
        }
        guard let redirectURI = p["redirect_uri"], Self.isAllowed(redirectURI, for: client) else {
            throw .page("The redirect_uri is missing or not allowed for client \(client.id).")
        }
        func fail(_ code: OAuthError.Code, _ text: String) -> Failure {
            .redirect(OAuthError(code, text), redirectURI: redirectURI, state: p["state"])
        }
        guard p["response_type"] == "code" else {
            throw fail(.unsupportedResponseType, "Only response_type=code is supported.")
        }
        guard client.grantTypes.contains(.authorizationCode) else {
            throw fail(.unauthorizedClient, "The client may not use the authorization code grant.")
        }
        if p["code_challenge"] != nil || p["code_challenge_method"] != nil {
            guard p["code_challenge_method"] == "S256" else {
                throw fail(.invalidRequest, "code_challenge_method must be S256; plain is not supported.")
            }
            guard let challenge = p["code_challenge"], challenge.count == 43 else {
                throw fail(.invalidRequest, "code_challenge must be a base64url SHA-256 (43 characters).")
            }
        } else if client.isPublic {
            throw fail(.invalidRequest, "Public clients must use PKCE: send code_challenge with S256.")
        }
        var maxAge: Int?
        if let text = p["max_age"] {
            guard let value = Int(text), value >= 0 else { throw fail(.invalidRequest, "max_age must be a number.") }
            maxAge = value
        }
        do {
            _ = try core.scopes.audience(p["audience"])
            try core.scopes.checkKnown(requested: p["scope"])
        } catch {
            throw .redirect(error, redirectURI: redirectURI, state: p["state"])
        }
        return AuthorizeRequest(
            client: client,
            redirectURI: redirectURI,
            state: p["state"],
            nonce: p["nonce"],
            scope: p["scope"],
            audience: p["audience"],
            codeChallenge: p["code_challenge"],
            prompt: Set((p["prompt"] ?? "").split(separator: " ").map(String.init)),
            maxAge: maxAge,
            acrValues: (p["acr_values"] ?? "").split(separator: " ").map(String.init)
        )
    }

    /// Exact match, except that loopback IP redirect URIs match on any port (RFC 8252 §7.3).
    static func isAllowed(_ uri: String, for client: AuthEmulator.Client) -> Bool {
        isAllowed(uri, among: client.redirectURIs)
    }

    /// Whether `uri` is one of `registered`: exactly, or for a loopback IP URI (`http://127.0.0.1`,
    /// `http://[::1]`) with any port and otherwise the same scheme, host, path and query (RFC 8252 §7.3).
    static func isAllowed(_ uri: String, among registered: [String]) -> Bool {
        if registered.contains(uri) { return true }
        guard var candidate = URLComponents(string: uri), candidate.scheme == "http",
            let host = candidate.host, ["127.0.0.1", "[::1]", "::1"].contains(host)
        else { return false }
        candidate.port = nil
        return registered.contains { registered in
            guard var allowed = URLComponents(string: registered) else { return false }
            allowed.port = nil
            return allowed == candidate
        }
    }

    /// `redirect_uri` with `pairs` appended to its query.
    static func redirect(_ uri: String, _ pairs: [(String, String)]) -> String {
        let separator = uri.contains("?") ? "&" : "?"
        return uri + separator + RequestParameters.encode(pairs)
    }
}
