import Foundation
import Hummingbird
import HummingbirdAnswers
import SessionKitSupport

/// The test controls over HTTP under `/__emulator/`, for tests in another process. Registered only when
/// `testControlsEnabled` is on; bodies and answers are JSON.
struct ControlEndpoints: Sendable {
    let core: EmulatorCore

    private struct ClockAdvance: Decodable { var seconds: Double }
    /// `{"required": true|false}`: the body of the MFA, DPoP-nonce and pushed-authorization switches.
    private struct MultiFactorDemand: Decodable { var required: Bool }
    private struct FaultRequest: Decodable {
        var endpoint: AuthEmulator.Endpoint
        var fault: AuthEmulator.Fault
    }
    private struct DeviceDecision: Decodable {
        var userCode: String
        var userID: String?
        enum CodingKeys: String, CodingKey {
            case userCode = "user_code"
            case userID = "user_id"
        }
    }

    func register(on router: Router<EmulatorRequestContext>) {
        let controls = AuthEmulator.Controls(core: core)
        let group = router.group("__emulator")
        group.get("clock") { _, _ -> Response in
            Answer.json(["now": .number(core.clock.now.timeIntervalSince1970)])
        }
        group.post("clock/advance") { request, context -> Response in
            if let refusal = Self.refuseUnlessJSON(request) { return refusal }
            return try await run {
                let body = try await request.decode(as: ClockAdvance.self, context: context)
                try await controls.advanceClock(by: body.seconds)
                return ["now": .number(core.clock.now.timeIntervalSince1970)]
            }
        }
        group.post("keys/rotate") { request, _ -> Response in
            if let refusal = Self.refuseUnlessJSON(request) { return refusal }
            return try await run { ["kid": .string(try await controls.rotateSigningKeys())] }
        }
        group.post("faults") { request, context -> Response in
            if let refusal = Self.refuseUnlessJSON(request) { return refusal }
            return try await run {
                let body = try await request.decode(as: FaultRequest.self, context: context)
                try await controls.inject(body.fault, into: body.endpoint)
                return [:]
            }
        }
        group.delete("faults") { request, _ -> Response in
            try await run {
                let name = RequestParameters.query(of: request)["endpoint"]
                let endpoint = name.flatMap(AuthEmulator.Endpoint.init(rawValue:))
                if name != nil, endpoint == nil {
                    throw AuthEmulatorError(code: .notFound, message: "No endpoint \(name ?? "")")
                }
                try await controls.clearFaults(endpoint)
                return [:]
            }
        }
        group.post("users/:id/revoke") { request, context -> Response in
            if let refusal = Self.refuseUnlessJSON(request) { return refusal }
            return try await run {
                let id = context.parameters.get("id") ?? ""
                let userID = id.removingPercentEncoding ?? id
                return ["revoked": .int(try await controls.revokeGrants(forUser: userID))]
            }
        }
        // {"required": true}: refresh grants of the user are answered mfa_required until {"required": false}.
        group.post("users/:id/mfa") { request, context -> Response in
            if let refusal = Self.refuseUnlessJSON(request) { return refusal }
            return try await run {
                let id = context.parameters.get("id") ?? ""
                let body = try await request.decode(as: MultiFactorDemand.self, context: context)
                try await controls.requireMultiFactor(forUser: id.removingPercentEncoding ?? id, body.required)
                return [:]
            }
        }
        // {"required": true}: DPoP proofs need the nonce; POST dpop/nonce/rotate replaces it.
        group.post("dpop/nonce") { request, context -> Response in
            if let refusal = Self.refuseUnlessJSON(request) { return refusal }
            return try await run {
                let body = try await request.decode(as: MultiFactorDemand.self, context: context)
                try await controls.setDPoPNonceRequired(body.required)
                return [:]
            }
        }
        group.post("dpop/nonce/rotate") { request, _ -> Response in
            if let refusal = Self.refuseUnlessJSON(request) { return refusal }
            return try await run {
                try await controls.rotateDPoPNonce()
                return [:]
            }
        }
        // {"required": true}: the client's sign-ins must be pushed (RFC 9126) until {"required": false}.
        group.post("clients/:id/par-required") { request, context -> Response in
            if let refusal = Self.refuseUnlessJSON(request) { return refusal }
            return try await run {
                let id = context.parameters.get("id") ?? ""
                let body = try await request.decode(as: MultiFactorDemand.self, context: context)
                try await controls.setPushedAuthorizationRequired(
                    body.required, forClient: id.removingPercentEncoding ?? id)
                return [:]
            }
        }
        registerLogoutControls(on: group, controls: controls)
        registerBackchannelControls(on: group, controls: controls)
        group.post("device/approve") { request, context -> Response in
            if let refusal = Self.refuseUnlessJSON(request) { return refusal }
            return try await run {
                let body = try await request.decode(as: DeviceDecision.self, context: context)
                try await controls.approveDevice(userCode: body.userCode, userID: body.userID ?? "")
                return [:]
            }
        }
        group.post("device/deny") { request, context -> Response in
            if let refusal = Self.refuseUnlessJSON(request) { return refusal }
            return try await run {
                let body = try await request.decode(as: DeviceDecision.self, context: context)
                try await controls.denyDevice(userCode: body.userCode)
                return [:]
            }
        }
        group.get("requests") { _, _ -> Response in
            try await run {
                let counts = try await controls.requestCounts()
                let data = try JSONEncoder().encode(counts)
                return try JSONDecoder().decode([String: JSONValue].self, from: data)
            }
        }
        group.delete("requests") { _, _ -> Response in
            try await run {
                try await controls.resetRequestCounts()
                return [:]
            }
        }
    }

    /// A 415 answer unless `request` declares a JSON body. A web page can send a cross-site `POST` with
    /// `text/plain` or a form body without asking first; a JSON one needs a CORS preflight, which the
    /// emulator never grants, so no page the user has open can drive the controls.
    static func refuseUnlessJSON(_ request: Request) -> Response? {
        let type = request.headers[.contentType]?.lowercased() ?? ""
        guard !type.hasPrefix("application/json") else { return nil }
        return Answer.json(
            [
                "error": "invalid_request",
                "error_description": "Test controls take a JSON body: send Content-Type: application/json.",
            ],
            status: .unsupportedMediaType
        )
    }

    /// Runs a control and answers 200 with its JSON, or 400/404 with `{error, error_description}`.
    func run(_ body: () async throws -> [String: JSONValue]) async throws -> Response {
        do {
            return Answer.json(try await body())
        } catch let error as AuthEmulatorError {
            let status: HTTPResponse.Status = error.code == .notFound ? .notFound : .badRequest
            return Answer.json(
                ["error": .string("\(error.code)"), "error_description": .string(error.message)], status: status)
        } catch {
            return Answer.json(
                ["error": "invalid_request", "error_description": "Unreadable JSON body."], status: .badRequest)
        }
    }
}
