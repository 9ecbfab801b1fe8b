import SessionKitSupport

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A session transfer token (Auth0's Native to Web SSO): a single-use credential, valid for about a minute, that
/// signs the session's user in to a web app of the same tenant through `/authorize?session_transfer_token=...`.
///
/// Obtain one from ``SessionManager/sessionTransferToken(audience:)``; use it at once and never store it. Its
/// ``description`` never shows the token.
public struct SessionTransferToken: Sendable, CustomStringConvertible {
    /// The token. Whoever holds it can sign in as the user until it is used or expires.
    public let token: Secret
    /// When the provider stops honouring it.
    public let expiresAt: Date

    /// A token received some other way (a web app's back end handed one by the native app), to pass on.
    public init(token: Secret, expiresAt: Date) {
        self.token = token
        self.expiresAt = expiresAt
    }

    /// The RFC 8693 token type of a session transfer token.
    public static let tokenType = "urn:auth0:params:oauth:token-type:session_transfer_token"

    /// `url` with the token added as the `session_transfer_token` query parameter: for a web app that passes it
    /// on to `/authorize` (its login route), or for `/authorize` itself.
    public func appended(to url: URL) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        var items = (components.queryItems ?? []).filter { $0.name != "session_transfer_token" }
        items.append(URLQueryItem(name: "session_transfer_token", value: token.unsafeRawValue))
        components.queryItems = items
        return components.url ?? url
    }

    /// The expiry, without the token.
    public var description: String { "SessionTransferToken(<REDACTED>, expires \(expiresAt.formatted(.iso8601)))" }
}

extension ProviderClient {
    /// What the provider answered to a session transfer exchange: the token, and a rotated refresh token when the
    /// provider rotates them (to be stored whatever else the answer says).
    struct SessionTransferAnswer: Sendable {
        var token: Result<SessionTransferToken, SessionKitError>
        var refreshToken: Secret?
    }

    /// Trades `credentials`' refresh token for a session transfer token (RFC 8693 token exchange with the
    /// `requested_token_type` of ``SessionTransferToken/tokenType``; `audience` is sent when given, as Auth0's
    /// `urn:<tenant domain>:session_transfer`).
    func sendSessionTransfer(_ credentials: Credentials, audience: String?) async throws(SessionKitError)
        -> SessionTransferAnswer
    {
        guard let refreshToken = credentials.refreshToken, !refreshToken.isEmpty else {
            throw SessionKitError(
                code: .signInRequired,
                message: "the session has no refresh token to trade for a session transfer token; sign in again "
                    + "(ask for offline_access to get a refresh token)")
        }
        var parameters: [(String, String)] = [
            ("grant_type", "urn:ietf:params:oauth:grant-type:token-exchange"),
            ("subject_token", refreshToken.unsafeRawValue),
            ("subject_token_type", TokenType.refreshToken.rawValue),
            ("requested_token_type", SessionTransferToken.tokenType),
        ]
        if let audience { parameters.append(("audience", audience)) }
        let url = try await metadata().endpoint(.token)
        let response = try await postForm(parameters, to: url, endpoint: "token endpoint", proof: true)
        let receivedAt = clock.now()
        guard response.status == 200 else { throw providerFailure(response, endpoint: "token endpoint") }
        let object = (try? JSONValue(parsing: response.body))?.objectValue ?? [:]
        let rotated = object["refresh_token"]?.stringValue.flatMap { $0.isEmpty ? nil : Secret($0) }
        guard object["issued_token_type"]?.stringValue == SessionTransferToken.tokenType,
            let token = object["access_token"]?.stringValue, !token.isEmpty
        else {
            let failure = SessionKitError(
                code: .invalidResponse,
                message: "the token endpoint's answer holds no session transfer token (issued_token_type "
                    + "\(SessionTransferToken.tokenType)); check that the client may create session transfer tokens")
            return SessionTransferAnswer(token: .failure(failure), refreshToken: rotated)
        }
        let lifetime = object["expires_in"]?.doubleValue ?? 60
        return SessionTransferAnswer(
            token: .success(
                SessionTransferToken(
                    token: Secret(token), expiresAt: receivedAt.addingTimeInterval(min(lifetime, 3600)))),
            refreshToken: rotated)
    }
}
