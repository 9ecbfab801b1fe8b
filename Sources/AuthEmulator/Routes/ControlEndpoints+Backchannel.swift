import Foundation
import Hummingbird
import SessionKitSupport

extension ControlEndpoints {
    /// `{"user_id": ..., "binding_message": ..., "ping_fault": ...}`: which pending backchannel authentication a
    /// control acts on, and how its ping misbehaves (`dropped`, `wrong_token`, `duplicate`).
    private struct BackchannelDecision: Decodable {
        var userID: String
        var bindingMessage: String?
        var pingFault: AuthEmulator.BackchannelPingFault?
        enum CodingKeys: String, CodingKey {
            case userID = "user_id"
            case bindingMessage = "binding_message"
            case pingFault = "ping_fault"
        }
    }

    /// `{"uri": ...}`: a client's notification endpoint, or `null` for poll mode.
    private struct NotificationEndpoint: Decodable { var uri: URL? }

    /// The backchannel authentication (OpenID CIBA) controls over HTTP: approve, deny, and a `slow_down` on the next
    /// poll, each for the user's newest pending request; a client's notification endpoint (ping mode) and the log of
    /// pings (`{"deliveries": [...]}`, dates in seconds since 1970).
    func registerBackchannelControls(on group: RouterGroup<EmulatorRequestContext>, controls: AuthEmulator.Controls) {
        group.post("ciba/approve") { request, context -> Response in
            if let refusal = Self.refuseUnlessJSON(request) { return refusal }
            return try await run {
                let body = try await request.decode(as: BackchannelDecision.self, context: context)
                try await controls.approveBackchannelAuthentication(
                    forUser: body.userID, bindingMessage: body.bindingMessage, pingFault: body.pingFault ?? .none)
                return [:]
            }
        }
        group.post("ciba/deny") { request, context -> Response in
            if let refusal = Self.refuseUnlessJSON(request) { return refusal }
            return try await run {
                let body = try await request.decode(as: BackchannelDecision.self, context: context)
                try await controls.denyBackchannelAuthentication(
                    forUser: body.userID, bindingMessage: body.bindingMessage, pingFault: body.pingFault ?? .none)
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
        group.post("clients/:id/backchannel-notification-endpoint") { request, context -> Response in
            if let refusal = Self.refuseUnlessJSON(request) { return refusal }
            return try await run {
                let body = try await request.decode(as: NotificationEndpoint.self, context: context)
                let id = context.parameters.get("id") ?? ""
                try await controls.setBackchannelNotificationEndpoint(
                    body.uri, forClient: id.removingPercentEncoding ?? id)
                return [:]
            }
        }
        group.get("ciba/pings") { _, _ -> Response in
            try await run {
                let encoder = JSONEncoder()
                encoder.dateEncodingStrategy = .secondsSince1970
                let data = try encoder.encode(try await controls.backchannelPingDeliveries())
                return ["deliveries": try JSONDecoder().decode(JSONValue.self, from: data)]
            }
        }
    }
}
