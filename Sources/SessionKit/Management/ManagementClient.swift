public import SessionKitSupport

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Reads and edits the signed-in user through Auth0's Management API (`/api/v2/users/{id}`): the
/// seeds' "update the user profile" and "retrieve user metadata" steps.
///
/// Auth0's second choice, for an app without a back end of its own: Auth0 advises calling the Management API from
/// a back end instead, with the back end's own machine-to-machine token (SessionKitBFF's `GET /auth/profile` and
/// `PATCH /auth/profile/metadata` do, through SessionKitServer's `ClientCredentialsTokenSource`), and Auth0.swift 3
/// removed its client.
///
/// Opt-in, and Auth0-specific. The session's access token must be for the Management API audience
/// (`https://<tenant>/api/v2/`) with the scopes `read:current_user` (for ``user(id:fields:includeFields:)``)
/// and `update:current_user_metadata` (for ``patchUserMetadata(id:_:)``): sign in with
/// `audience: "https://<tenant>/api/v2/"` and those scopes added to the scope.
///
/// ```swift
/// let management = ManagementClient(session: session)
/// let user = try await management.patchUserMetadata(id: profile.subject, ["country": "Canada"])
/// ```
public struct ManagementClient: Sendable {
    /// The session whose access token authorizes the calls, and whose cached profile is updated.
    public let session: SessionManager
    /// The Management API's base URL, `<issuer>api/v2/` unless given.
    public let baseURL: URL

    /// Creates a client for `session`'s tenant.
    public init(session: SessionManager, baseURL: URL? = nil) {
        self.session = session
        self.baseURL = baseURL ?? session.provider.configuration.issuer.appendingPathComponent("api/v2/")
    }

    /// The user `id`, or only the named `fields` (`includeFields: false` returns all but those).
    public func user(id: String, fields: [String] = [], includeFields: Bool = true) async throws(SessionKitError)
        -> JSONValue
    {
        let query = ManagementRequests.fieldsQuery(fields, includeFields: includeFields)
        return try await send(method: "GET", id: id, query: query, body: nil)
    }

    /// Merges `metadata` into the user's `user_metadata` as Auth0 does (top-level keys merged, nested
    /// objects replaced, `null` deletes a key) and returns the updated user. The session's cached
    /// profile takes the new `user_metadata`.
    public func patchUserMetadata(id: String, _ metadata: [String: JSONValue]) async throws(SessionKitError)
        -> JSONValue
    {
        let body = try ManagementRequests.metadataBody(metadata)
        let user = try await send(method: "PATCH", id: id, query: [], body: body)
        if let updated = user["user_metadata"] {
            try await session.cacheUserMetadata(updated)
        }
        return user
    }

    private func send(method: String, id: String, query: [URLQueryItem], body: Data?) async throws(SessionKitError)
        -> JSONValue
    {
        let requests = ManagementRequests(provider: session.provider, baseURL: baseURL)
        let url = try requests.userURL(id: id, query: query)
        let credentials = try await session.credentials(minTTL: 10)
        // Bearer, or for a DPoP-bound token `Authorization: DPoP` with its proof.
        let authorization = try await session.provider.authorizationHeaders(
            for: credentials, method: method, url: url)
        return try await requests.send(
            method: method, url: url, authorization: authorization, body: body, advice: Self.advice)
    }

    /// What a refusal of the user's own token means.
    static let advice = ManagementRequests.Advice(
        unauthorized: "the access token was refused: it is not for the Management API; sign in with the audience "
            + "https://TENANT/api/v2/ and the scopes read:current_user update:current_user_metadata",
        forbidden: "the access token lacks the scope for this call (read:current_user, update:current_user_metadata) "
            + "or the user is not the token's own; sign in again with those scopes")
}
