import Foundation
import Hummingbird
import HummingbirdAnswers
import Logging
import SessionKitSupport

/// `POST /bc-authorize` (OpenID CIBA Core 1.0 section 7, poll and ping modes): authenticates a confidential client as
/// the token endpoint does, resolves `login_hint` to a user, checks `binding_message`, and answers an `auth_req_id` with
/// its `expires_in` and `interval`. The user's decision comes from a test control (``AuthEmulator/Controls``), standing
/// in for the authentication device.
///
/// A ping-mode client (one with a notification endpoint) must send `client_notification_token`; a poll-mode client
/// that sends one is refused rather than ignored, since it would wait for pings that never come.
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
        let notificationToken = try clientNotificationToken(p, client: client)
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
            clientNotificationToken: notificationToken,
            now: now)
        return Answer.json([
            "auth_req_id": .string(id),
            "expires_in": .number(lifetimes.backchannelRequest.rounded()),
            "interval": .int(lifetimes.backchannelPollInterval),
        ])
    }

    /// The `client_notification_token` of a ping-mode client's request (CIBA Core section 7.1: required, at most 1024
    /// characters of RFC 6750 `b64token`), or `nil` for a poll-mode client, which must not send one.
    private func clientNotificationToken(_ p: RequestParameters, client: AuthEmulator.Client) throws(OAuthError)
        -> String?
    {
        let token = p["client_notification_token"]
        guard core.backchannelPings.uri(forClient: client.id) != nil else {
            guard token == nil else {
                throw OAuthError(
                    .invalidRequest,
                    "The client is registered for poll mode, so it is never pinged: remove client_notification_token, "
                        + "or register the client for ping mode with a notification endpoint.")
            }
            return nil
        }
        guard let token, !token.isEmpty else {
            throw OAuthError(
                .invalidRequest,
                "Missing required parameter: client_notification_token (the client is registered for ping mode).")
        }
        guard token.utf8.count <= 1024, Self.isBearerToken(token) else {
            throw OAuthError(
                .invalidRequest,
                "The client_notification_token must be 1 to 1024 characters of an RFC 6750 bearer token "
                    + "(letters, digits, -._~+/ and trailing =).")
        }
        return token
    }

    /// Whether `token` has the syntax of an RFC 6750 `b64token`: `1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" /
    /// "/" ) *"="`.
    static func isBearerToken(_ token: String) -> Bool {
        let body = token.utf8.reversed().drop { $0 == UInt8(ascii: "=") }
        return !body.isEmpty
            && body.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"):
                    return true
                default: return "-._~+/".utf8.contains(byte)
                }
            }
    }
}
