import Foundation
import Hummingbird
import SessionKitSupport

extension ControlEndpoints {
    private struct BackchannelURI: Decodable { var uri: URL? }

    /// The logout controls over HTTP: a client's back-channel logout URI, ending a user's sessions, and the
    /// delivery log (`{"deliveries": [...]}`, dates in seconds since 1970).
    func registerLogoutControls(on group: RouterGroup<EmulatorRequestContext>, controls: AuthEmulator.Controls) {
        group.post("clients/:id/backchannel-logout-uri") { request, context -> Response in
            if let refusal = Self.refuseUnlessJSON(request) { return refusal }
            return try await run {
                let body = try await request.decode(as: BackchannelURI.self, context: context)
                try await controls.setBackchannelLogoutURI(body.uri, forClient: Self.parameter("id", in: context))
                return [:]
            }
        }
        group.post("users/:id/end-sessions") { request, context -> Response in
            if let refusal = Self.refuseUnlessJSON(request) { return refusal }
            return try await run {
                let deliveries = try await controls.endSessions(forUser: Self.parameter("id", in: context))
                return ["deliveries": try Self.json(deliveries)]
            }
        }
        group.get("backchannel/deliveries") { _, _ -> Response in
            try await run { ["deliveries": try Self.json(try await controls.backchannelDeliveries())] }
        }
        group.delete("backchannel/deliveries") { _, _ -> Response in
            try await run {
                try await controls.clearBackchannelDeliveries()
                return [:]
            }
        }
    }

    private static func parameter(_ name: String, in context: EmulatorRequestContext) -> String {
        let value = context.parameters.get(name) ?? ""
        return value.removingPercentEncoding ?? value
    }

    private static func json(_ deliveries: [AuthEmulator.BackchannelDelivery]) throws -> JSONValue {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        return try JSONDecoder().decode(JSONValue.self, from: try encoder.encode(deliveries))
    }
}
