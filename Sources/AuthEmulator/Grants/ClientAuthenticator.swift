import Foundation
import Hummingbird
import SessionKitSupport

/// Identifies and authenticates the client of a token, revoke or device request, as Auth0 does:
/// `client_secret_basic` (HTTP Basic) or `client_secret_post` (`client_secret` in the body), or just
/// `client_id` for a public client.
struct ClientAuthenticator: Sendable {
    let core: EmulatorCore

    func authenticate(_ request: Request, _ parameters: RequestParameters) throws(OAuthError) -> AuthEmulator.Client {
        var clientID = parameters["client_id"]
        var secret = parameters["client_secret"]
        var method = secret == nil ? "none" : "client_secret_post"
        if let header = request.headers[.authorization], header.lowercased().hasPrefix("basic ") {
            guard let decoded = Data(base64Encoded: String(header.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
                let text = String(data: decoded, encoding: .utf8), let colon = text.firstIndex(of: ":")
            else {
                throw OAuthError(.invalidClient, "The Authorization header is not valid Basic credentials.")
            }
            let basicID = String(text[..<colon]).removingPercentEncoding ?? String(text[..<colon])
            let basicSecret = String(text[text.index(after: colon)...])
            if let clientID, clientID != basicID {
                throw OAuthError(.invalidRequest, "client_id differs between the body and the Authorization header.")
            }
            clientID = basicID
            method = "client_secret_basic"
            secret = basicSecret.removingPercentEncoding ?? basicSecret
        }
        guard let clientID else {
            throw OAuthError(.invalidRequest, "Missing required parameter: client_id")
        }
        guard let client = core.client(id: clientID) else {
            throw OAuthError(.invalidClient, "Unknown client.")
        }
        if let expected = client.secret {
            guard let secret else {
                throw OAuthError(.invalidClient, "Client authentication is required for a confidential client.")
            }
            guard ConstantTime.equals(secret, expected) else {
                throw OAuthError(.invalidClient, "Client authentication failed.")
            }
            guard core.configuration.clientAuthenticationMethods.contains(method) else {
                throw OAuthError(.invalidClient, "Client authentication by \(method) is not accepted here.")
            }
        }
        return client
    }
}
