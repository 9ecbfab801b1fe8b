import Foundation
import Hummingbird
import HummingbirdAnswers
import Logging
import SessionKitSupport

/// `POST /bc-authorize` (OpenID CIBA Core 1.0 section 7, poll mode): authenticates a confidential client as the token
/// endpoint does, resolves `login_hint` to a user, checks `binding_message`, and answers an `auth_req_id` with its
/// `expires_in` and `interval`. The user's decision comes from a test control (``AuthEmulator/Controls``), standing in
/// for the authentication device.
struct BackchannelAuthenticationEndpoint: Sendable {
    let core: EmulatorCore

    /// The longest `binding_message` accepted, and its characters (Auth0's rule: it must fit on a phone's screen).
    static let bindingMessageLimit = 64
    static let bindingMessageCharacters = CharacterSet.alphanumerics.union(.whitespaces).union(
        CharacterSet(charactersIn: "+-_.,:#"))

    func register(on router: Router<EmulatorRequestContext>) {
        router.postFromClient("bc-authorize", core: core, refused: "Backchannel authentication refused") {
            (request, parameters, client) async throws(OAuthError) -> Response in
            return try await start(parameters, client: client)
        }
    }

    private func start(_ p: RequestParameters, client: AuthEmulator.Client) async throws(OAuthError) -> Response {
        guard !client.isPublic else {
            throw OAuthError(
                .unauthorizedClient, "Backchannel authentication is for confidential clients; authenticate the client.")
        }
        guard client.grantTypes.contains(.ciba) else {
            throw OAuthError(.unauthorizedClient, "The client may not use client-initiated backchannel authentication.")
        }
        guard p["login_hint_token"] == nil, p["id_token_hint"] == nil, p["request"] == nil else {
            throw OAuthError(
                .invalidRequest,
                "Only login_hint identifies the user here (no login_hint_token, id_token_hint or request object).")
        }
        guard p["user_code"] == nil else {
            throw OAuthError(.invalidRequest, "user_code is not supported (backchannel_user_code_parameter_supported).")
        }
        guard let hint = p["login_hint"], !hint.isEmpty else {
            throw OAuthError(.invalidRequest, "Missing required parameter: login_hint")
        }
        let scope = p["scope"] ?? ""
        guard scope.split(separator: " ").contains("openid") else {
            throw OAuthError(.invalidRequest, "The scope must contain openid (CIBA Core section 7.1).")
        }
        let bindingMessage = p["binding_message"]
        if let bindingMessage {
            guard !bindingMessage.isEmpty, bindingMessage.count <= Self.bindingMessageLimit,
                bindingMessage.unicodeScalars.allSatisfy(Self.bindingMessageCharacters.contains)
            else {
                throw OAuthError(
                    .invalidBindingMessage,
                    "The binding_message must be 1 to \(Self.bindingMessageLimit) letters, digits, spaces or +-_.,:#")
            }
        }
        let audience = try core.scopes.audience(p["audience"])
        try core.scopes.checkKnown(requested: scope)
        guard let user = await core.state.user(idOrEmail: hint) else {
            throw OAuthError(.unknownUserID, "The login_hint names no known user.")
        }
        let lifetimes = core.configuration.lifetimes
        let now = core.clock.now
        let id = core.ciba.start(
            .init(
                clientID: client.id,
                userID: user.id,
                scopes: core.scopes.userGrant(requested: scope, audience: audience),
                audience: audience,
                bindingMessage: bindingMessage,
                expiresAt: now.addingTimeInterval(lifetimes.backchannelRequest),
                interval: lifetimes.backchannelPollInterval
            ),
            now: now)
        return Answer.json([
            "auth_req_id": .string(id),
            "expires_in": .number(lifetimes.backchannelRequest.rounded()),
            "interval": .int(lifetimes.backchannelPollInterval),
        ])
    }
}
