import Foundation
import HTTPTypes
import Hummingbird
import Logging
import SecureStore
import SessionKit

extension BackendForFrontend {
    /// `GET /auth/login[?return_to=/path]`: starts the authorization-code flow and redirects to the provider.
    func login(_ request: Request) async -> Response {
        var returnTo = "/"
        if let asked = request.uri.queryParameters["return_to"] {
            guard let path = ReturnPath.validated(String(asked)) else {
                return Answers.error(
                    .badRequest, "invalid_return_to",
                    "return_to must be a path on this site, such as /orders; other sites are refused.")
            }
            returnTo = path
        }
        let authorization: AuthorizationRequest
        do {
            authorization = try await provider.authorizationRequest(
                redirectURI: configuration.callbackURL, scope: configuration.scope, audience: configuration.audience)
        } catch {
            logger?.warning("sign-in could not start", metadata: ["error": "\(error.code)"])
            return Answers.error(
                .badGateway, "provider_unavailable",
                "The identity provider could not be reached to start the sign-in; try again later.")
        }
        let binding = Self.randomToken()
        let record = PendingSignIns.Record(
            authorizationURL: authorization.url, redirectURI: authorization.redirectURI, state: authorization.state,
            nonce: authorization.nonce, codeVerifier: authorization.codeVerifier.unsafeRawValue,
            scope: authorization.scope, bindingDigest: PendingSignIns.digest(binding), returnTo: returnTo,
            createdAt: Date())
        do {
            try signIns.save(record)
        } catch {
            logger?.warning("sign-in could not be saved", metadata: ["error": "\(error.code)"])
            return Answers.error(
                .serviceUnavailable, "session_store_unavailable",
                "The session store cannot be reached right now, so the sign-in cannot start; try again shortly.",
                retryAfter: 1)
        }
        return Answers.redirect(
            to: authorization.url.absoluteString,
            setCookies: [cookies.setSignIn(binding, lifetime: configuration.signInTimeout)])
    }

    /// 256 random bits as base64url text.
    static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
