import Hummingbird

extension ControlEndpoints {
    /// `{"user_id": ..., "binding_message": ...}`: which pending backchannel authentication a control acts on.
    private struct BackchannelDecision: Decodable {
        var userID: String
        var bindingMessage: String?
        enum CodingKeys: String, CodingKey {
            case userID = "user_id"
            case bindingMessage = "binding_message"
        }
    }

    /// The backchannel authentication (OpenID CIBA) controls over HTTP: approve, deny, and a `slow_down` on the next
    /// poll, each for the user's newest pending request.
    func registerBackchannelControls(on group: RouterGroup<EmulatorRequestContext>, controls: AuthEmulator.Controls) {
        group.post("ciba/approve") { request, context -> Response in
            if let refusal = Self.refuseUnlessJSON(request) { return refusal }
            return try await run {
                let body = try await request.decode(as: BackchannelDecision.self, context: context)
                try await controls.approveBackchannelAuthentication(
                    forUser: body.userID, bindingMessage: body.bindingMessage)
                return [:]
            }
        }
        group.post("ciba/deny") { request, context -> Response in
            if let refusal = Self.refuseUnlessJSON(request) { return refusal }
            return try await run {
                let body = try await request.decode(as: BackchannelDecision.self, context: context)
                try await controls.denyBackchannelAuthentication(
                    forUser: body.userID, bindingMessage: body.bindingMessage)
                return [:]
            }
        }
        group.post("ciba/slow-down") { request, context -> Response in
            if let refusal = Self.refuseUnlessJSON(request) { return refusal }
            return try await run {
                let body = try await request.decode(as: BackchannelDecision.self, context: context)
                try await controls.slowDownBackchannelPolling(forUser: body.userID)
                return [:]
            }
        }
    }
}
