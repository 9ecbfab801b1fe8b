public import SessionKitSupport

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Reads and edits the signed-in user through Auth0's Management API (`/api/v2/users/{id}`): the
/// seeds' "update the user profile" and "retrieve user metadata" steps.
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
        var query: [URLQueryItem] = []
        if !fields.isEmpty {
            query.append(URLQueryItem(name: "fields", value: fields.joined(separator: ",")))
            query.append(URLQueryItem(name: "include_fields", value: includeFields ? "true" : "false"))
        }
        return try await send(method: "GET", id: id, query: query, body: nil)
    }

    /// Merges `metadata` into the user's `user_metadata` as Auth0 does (top-level keys merged, nested
    /// objects replaced, `null` deletes a key) and returns the updated user. The session's cached
    /// profile takes the new `user_metadata`.
    public func patchUserMetadata(id: String, _ metadata: [String: JSONValue]) async throws(SessionKitError)
        -> JSONValue
    {
        let body: Data
        do {
            body = try JSONValue.object(["user_metadata": .object(metadata)]).jsonData()
        } catch {
            throw SessionKitError(
                code: .invalidInput, message: "the metadata cannot be encoded as JSON", underlyingError: error)
        }
        let user = try await send(method: "PATCH", id: id, query: [], body: body)
        if let updated = user["user_metadata"] {
            try await session.cacheUserMetadata(updated)
        }
        return user
    }

    private func send(method: String, id: String, query: [URLQueryItem], body: Data?) async throws(SessionKitError)
        -> JSONValue
    {
        let escaped = id.percentEncoded(keeping: "-_.")
        guard !id.isEmpty,
            var components = URLComponents(url: baseURL.appendingPathComponent("users"), resolvingAgainstBaseURL: false)
        else {
            throw SessionKitError(code: .invalidInput, message: "the user id is empty or cannot be put in a URL")
        }
        components.percentEncodedPath += "/" + escaped
        components.queryItems = query.isEmpty ? nil : query
        guard let url = components.url else {
            throw SessionKitError(
                code: .invalidInput, message: "the Management API URL cannot be built for that user id")
        }
        let credentials = try await session.credentials(minTTL: 10)
        // Bearer, or for a DPoP-bound token `Authorization: DPoP` with its proof.
        var headers = try await session.provider.authorizationHeaders(for: credentials, method: method, url: url)
        headers.append(("Accept", "application/json"))
        if body != nil { headers.append(("Content-Type", "application/json")) }
        let response = try await session.provider.send(
            HTTPRequest(method: method, url: url, headers: headers, body: body), endpoint: "Management API")
        guard response.status == 200 else { throw managementFailure(response) }
        guard let value = try? JSONValue(parsing: response.body), value.objectValue != nil else {
            throw SessionKitError(
                code: .invalidResponse, message: "the Management API answered with something other than a JSON object")
        }
        return value
    }

    private func managementFailure(_ response: HTTPResponse) -> SessionKitError {
        let object = (try? JSONValue(parsing: response.body))?.objectValue
        let errorCode = object?["errorCode"]?.stringValue ?? object?["error"]?.stringValue
        let detail = object?["message"]?.stringValue
        let (code, advice): (SessionKitError.Code, String) =
            switch response.status {
            // The session is fine; its access token is not for this API, or lacks the scopes: the configuration's to
            // fix, not a failure to wait out.
            case 401:
                (
                    .invalidConfiguration,
                    "the access token was refused: it is not for the Management API; sign in with the audience "
                        + "https://TENANT/api/v2/ and the scopes read:current_user update:current_user_metadata"
                )
            case 403:
                (
                    .invalidConfiguration,
                    "the access token lacks the scope for this call (read:current_user, update:current_user_metadata) "
                        + "or the user is not the token's own; sign in again with those scopes"
                )
            case 429: (.rateLimited, "rate-limited; try again later")
            case 400: (.invalidInput, "the request was refused as invalid")
            case 500...: (.serverError, "the Management API failed; try again later")
            default: (.providerError, "the Management API refused the request")
            }
        return SessionKitError(
            code: code,
            message: "Management API HTTP \(response.status): \(advice)",
            oauthError: errorCode,
            oauthErrorDescription: detail,
            httpStatus: response.status
        )
    }
}
