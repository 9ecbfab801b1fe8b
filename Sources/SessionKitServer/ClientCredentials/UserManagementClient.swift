public import SessionKit
public import SessionKitSupport

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    import Foundation
#endif

/// Reads and edits any user through Auth0's Management API (`/api/v2/users/{id}`) with the back end's own
/// client-credentials token, never a user's: what Auth0 advises for profile pages, and what SessionKitBFF's
/// `/auth/profile` routes use.
///
/// The client of ``tokens`` needs a client grant on the Management API with `read:users` (for
/// ``user(id:fields:)``) and `update:users` (for ``patchUserMetadata(id:_:)``). The back end decides whose
/// profile a request may touch (the signed-in user's own): this client reaches every user.
///
/// ```swift
/// let tokens = ClientCredentialsTokenSource(
///     provider: provider, audience: "https://example.eu.auth0.com/api/v2/", store: store)
/// let management = UserManagementClient(tokens: tokens, provider: provider)
/// let user = try await management.user(id: "auth0|123", fields: ["user_id", "user_metadata"])
/// ```
public struct UserManagementClient: Sendable {
    /// Where the calls' token comes from.
    public let tokens: ClientCredentialsTokenSource
    let requests: ManagementRequests

    /// Creates a client that sends through `provider`'s transport to `baseURL` (`<issuer>api/v2/` unless given).
    public init(tokens: ClientCredentialsTokenSource, provider: ProviderClient, baseURL: URL? = nil) {
        self.tokens = tokens
        self.requests = ManagementRequests(provider: provider, baseURL: baseURL)
    }

    /// The Management API's base URL.
    public var baseURL: URL { requests.baseURL }

    /// The user `id`, or only the named `fields`.
    ///
    /// - Throws: ``SessionKit/SessionKitError``: retryable (``SessionKit/SessionKitError/Code/networkFailure``,
    ///   ``SessionKit/SessionKitError/Code/timeout``, ``SessionKit/SessionKitError/Code/serverError``,
    ///   ``SessionKit/SessionKitError/Code/rateLimited``) when the Management API could not answer now;
    ///   ``SessionKit/SessionKitError/Code/invalidConfiguration`` when it refused the back end's token (a missing
    ///   client grant or scope); ``SessionKit/SessionKitError/Code/invalidInput`` with HTTP status 404 when the
    ///   user does not exist.
    public func user(id: String, fields: [String] = []) async throws(SessionKitError) -> JSONValue {
        let url = try requests.userURL(id: id, query: ManagementRequests.fieldsQuery(fields, includeFields: true))
        return try await send(method: "GET", url: url, body: nil)
    }

    /// Merges `metadata` into the user's `user_metadata` as Auth0 does (top-level keys merged, nested objects
    /// replaced, `null` deletes a key) and returns the updated user. Throws as ``user(id:fields:)`` does.
    public func patchUserMetadata(id: String, _ metadata: [String: JSONValue]) async throws(SessionKitError)
        -> JSONValue
    {
        let body = try ManagementRequests.metadataBody(metadata)
        return try await send(method: "PATCH", url: try requests.userURL(id: id), body: body)
    }

    /// Sends with the current token; a token the API refuses (401: revoked, or signed with a retired key) is
    /// forgotten and the call sent once more with a new one.
    private func send(method: String, url: URL, body: Data?) async throws(SessionKitError) -> JSONValue {
        var attempt = 0
        while true {
            attempt += 1
            let credentials = try await tokens.token()
            let authorization = try await requests.provider.authorizationHeaders(
                for: credentials, method: method, url: url)
            do {
                return try await requests.send(
                    method: method, url: url, authorization: authorization, body: body, advice: Self.advice)
            } catch  where error.httpStatus == 401 && attempt == 1 {
                await tokens.invalidate(credentials)
            }
        }
    }

    /// What a refusal of the back end's token means.
    static let advice = ManagementRequests.Advice(
        unauthorized: "the back end's client-credentials token was refused twice: check that it is for the "
            + "Management API audience (https://TENANT/api/v2/)",
        forbidden: "the back end's client-credentials token lacks the scope for this call: give its client a "
            + "client grant on the Management API with read:users and update:users")
}
