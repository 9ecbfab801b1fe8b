package import SessionKitSupport

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

/// The requests of Auth0's Management API `users/{id}` endpoints and how their failures read, shared by the app's
/// ``ManagementClient`` (the user's own token) and a server's client (the back end's client-credentials token).
package struct ManagementRequests: Sendable {
    /// What a refusal means for the token that was sent, in the words of the caller's configuration.
    package struct Advice: Sendable {
        /// For a 401: the token is not for the Management API (or no longer valid).
        package var unauthorized: String
        /// For a 403: the token lacks the scope for the call.
        package var forbidden: String

        package init(unauthorized: String, forbidden: String) {
            self.unauthorized = unauthorized
            self.forbidden = forbidden
        }
    }

    package let provider: ProviderClient
    package let baseURL: URL

    package init(provider: ProviderClient, baseURL: URL? = nil) {
        self.provider = provider
        self.baseURL = baseURL ?? provider.configuration.issuer.appendingPathComponent("api/v2/")
    }

    /// The URL of the user `id`, with `query`.
    package func userURL(id: String, query: [URLQueryItem] = []) throws(SessionKitError) -> URL {
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
        return url
    }

    /// The query that selects `fields` (`includeFields: false`: all but those).
    package static func fieldsQuery(_ fields: [String], includeFields: Bool) -> [URLQueryItem] {
        guard !fields.isEmpty else { return [] }
        return [
            URLQueryItem(name: "fields", value: fields.joined(separator: ",")),
            URLQueryItem(name: "include_fields", value: includeFields ? "true" : "false"),
        ]
    }

    /// The body of a `user_metadata` patch.
    package static func metadataBody(_ metadata: [String: JSONValue]) throws(SessionKitError) -> Data {
        do {
            return try JSONValue.object(["user_metadata": .object(metadata)]).jsonData()
        } catch {
            throw SessionKitError(
                code: .invalidInput, message: "the metadata cannot be encoded as JSON", underlyingError: error)
        }
    }

    /// Sends `method url` with `authorization` (and `body` as JSON), and returns the user object answered.
    package func send(
        method: String, url: URL, authorization: [(name: String, value: String)], body: Data?, advice: Advice
    ) async throws(SessionKitError) -> JSONValue {
        var headers = authorization
        headers.append(("Accept", "application/json"))
        if body != nil { headers.append(("Content-Type", "application/json")) }
        let response = try await provider.send(
            HTTPRequest(method: method, url: url, headers: headers, body: body), endpoint: "Management API")
        guard response.status == 200 else { throw Self.failure(response, advice: advice) }
        guard let value = try? JSONValue(parsing: response.body), value.objectValue != nil else {
            throw SessionKitError(
                code: .invalidResponse, message: "the Management API answered with something other than a JSON object")
        }
        return value
    }

    /// A refusal or failure as an error that says what to do, with the Management API's `errorCode` and message.
    package static func failure(_ response: HTTPResponse, advice: Advice) -> SessionKitError {
        let object = (try? JSONValue(parsing: response.body))?.objectValue
        let errorCode = object?["errorCode"]?.stringValue ?? object?["error"]?.stringValue
        let detail = object?["message"]?.stringValue
        // A 401 or 403 leaves the session fine: the token is not for this API or lacks the scopes, which is the
        // configuration's to fix, not a failure to wait out.
        let (code, text): (SessionKitError.Code, String) =
            switch response.status {
            case 401: (.invalidConfiguration, advice.unauthorized)
            case 403: (.invalidConfiguration, advice.forbidden)
            case 404: (.invalidInput, "the user does not exist at the provider")
            case 429: (.rateLimited, "rate-limited; try again later")
            case 400: (.invalidInput, "the request was refused as invalid")
            case 500...: (.serverError, "the Management API failed; try again later")
            default: (.providerError, "the Management API refused the request")
            }
        return SessionKitError(
            code: code,
            message: "Management API HTTP \(response.status): \(text)",
            oauthError: errorCode,
            oauthErrorDescription: detail,
            httpStatus: response.status
        )
    }
}
