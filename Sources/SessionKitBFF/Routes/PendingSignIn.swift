import Foundation
import SessionKit

/// A sign-in started by `GET /auth/login` and not yet finished: everything the code exchange needs and where
/// to go afterwards. It travels sealed in the browser's sign-in cookie, so starting a sign-in writes nothing on
/// the server, and the callback may land on any instance.
struct PendingSignIn: Codable, Sendable {
    var state: String
    var nonce: String
    var codeVerifier: String
    var scope: String
    var returnTo: String
    var createdAt: Date

    init(_ request: AuthorizationRequest, returnTo: String, createdAt: Date) {
        state = request.state
        nonce = request.nonce
        codeVerifier = request.codeVerifier.unsafeRawValue
        scope = request.scope
        self.returnTo = returnTo
        self.createdAt = createdAt
    }

    init?(encoded: Data) {
        guard let decoded = try? JSONDecoder().decode(Self.self, from: encoded) else { return nil }
        self = decoded
    }

    var encoded: Data { (try? JSONEncoder().encode(self)) ?? Data() }

    /// The authorization request this sign-in made, for the code exchange (`redirectURI` is the callback URL;
    /// the authorization URL itself is not needed again).
    func authorizationRequest(callbackURL: URL) -> AuthorizationRequest {
        AuthorizationRequest(
            url: callbackURL, redirectURI: callbackURL, state: state, nonce: nonce, codeVerifier: Secret(codeVerifier),
            scope: scope)
    }
}
