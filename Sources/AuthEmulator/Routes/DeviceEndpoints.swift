import Hummingbird
import HummingbirdAnswers
import SessionKitSupport

/// `POST /oauth/device/code` (RFC 8628 §3.1–3.2) and the `/activate` page where a user approves or denies.
struct DeviceEndpoints: Sendable {
    let core: EmulatorCore

    func register(on router: Router<EmulatorRequestContext>) {
        router.postFromClient("oauth/device/code", core: core) {
            (request, parameters, client) async throws(OAuthError) -> Response in
            return try await start(parameters, client: client)
        }
        router.get("activate") { request, _ -> Response in
            Answer.html(HTMLPages.activate(userCode: RequestParameters.query(of: request)["user_code"]))
        }
        router.post("activate") { request, _ -> Response in
            var request = request
            let cookie = request.cookies[AuthorizeEndpoint.sessionCookie]?.value
            guard let parameters = try? await RequestParameters.body(of: &request) else {
                return Answer.html(
                    HTMLPages.activate(userCode: nil, error: "Unreadable form."), status: .badRequest)
            }
            return await activate(parameters, cookie: cookie)
        }
    }

    private func start(_ p: RequestParameters, client: AuthEmulator.Client) async throws(OAuthError) -> Response {
        guard client.grantTypes.contains(.deviceCode) else {
            throw OAuthError(.unauthorizedClient, "The client may not use the device authorization grant.")
        }
        let audience = try core.scopes.audience(p["audience"])
        try core.scopes.checkKnown(requested: p["scope"])
        let lifetimes = core.configuration.lifetimes
        let codes = await core.state.createDeviceCode(
            clientID: client.id,
            scopes: core.scopes.userGrant(requested: p["scope"], audience: audience),
            audience: audience,
            lifetime: lifetimes.deviceCode,
            interval: lifetimes.devicePollInterval
        )
        let verification = core.issuer + "activate"
        return Answer.json([
            "device_code": .string(codes.deviceCode),
            "user_code": .string(codes.userCode),
            "verification_uri": .string(verification),
            "verification_uri_complete": .string(verification + "?user_code=" + codes.userCode),
            "expires_in": .number(lifetimes.deviceCode.rounded()),
            "interval": .int(lifetimes.devicePollInterval),
        ])
    }

    private func activate(_ p: RequestParameters, cookie: String?) async -> Response {
        let userCode = p["user_code"] ?? ""
        guard await core.state.pendingDevice(userCode: userCode) != nil else {
            let page = HTMLPages.activate(userCode: userCode, error: "That code is invalid or has expired.")
            return Answer.html(page, status: .badRequest)
        }
        var userID: String?
        if let username = p["username"], let password = p["password"] {
            userID = await core.state.authenticate(username: username, password: password)?.id
        } else if let cookie {
            userID = await core.state.session(cookie: cookie)?.userID
        } else if let auto = core.configuration.autoSignInUser {
            userID = await core.state.user(idOrEmail: auto)?.id
        }
        guard let userID else {
            let page = HTMLPages.activate(
                userCode: userCode, error: "Sign in to approve: wrong or missing credentials.")
            return Answer.html(page, status: .unauthorized)
        }
        let approve = p["action"] != "deny"
        _ = await core.state.decideDevice(userCode: userCode, approvedBy: approve ? userID : nil)
        return approve
            ? Answer.html(HTMLPages.message("Device approved", "You can return to your device."))
            : Answer.html(HTMLPages.message("Request denied", "The device was not given access."))
    }
}
