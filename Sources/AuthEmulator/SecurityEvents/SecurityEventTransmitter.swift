import Foundation
import JWTKit

/// The emulator as a Shared Signals transmitter (OpenID SSF 1.0): mints Security Event Tokens (RFC 8417) about a
/// user and pushes them to a client's receiver (RFC 8935), with the faults of ``AuthEmulator/SecurityEventFault``.
struct SecurityEventTransmitter: Sendable {
    let core: EmulatorCore

    /// The explicit type of a Security Event Token (RFC 8417 §2.3).
    static let type = "secevent+jwt"

    /// Mints one token of `eventType` about `subject` for `client` and delivers it as `fault` says; returns the
    /// deliveries made (two for ``AuthEmulator/SecurityEventFault/duplicate``), after adding them to the log.
    func send(
        _ eventType: String, subject: String, to client: AuthEmulator.Client, at uri: URL,
        fault: AuthEmulator.SecurityEventFault
    ) async throws -> [AuthEmulator.SecurityEventDelivery] {
        let token = try await mint(eventType, subject: subject, for: client, fault: fault)
        if case .slow(let seconds) = fault { try await Task.sleep(for: .seconds(seconds)) }
        let attempts = fault == .duplicate ? 2 : 1
        let timeout = core.configuration.backchannelLogoutTimeout
        let deliveries = await BackchannelTransport.post(
            token, type: "application/secevent+jwt", to: uri, attempts: attempts, timeout: timeout,
            now: { core.clock.now }
        ).map { sent in
            AuthEmulator.SecurityEventDelivery(
                clientID: client.id, uri: uri, token: token, status: sent.outcome.status, failure: sent.outcome.failure,
                sentAt: sent.sentAt)
        }
        core.securityEvents.record(deliveries)
        return deliveries
    }

    private func mint(
        _ eventType: String, subject: String, for client: AuthEmulator.Client,
        fault: AuthEmulator.SecurityEventFault
    ) async throws -> String {
        let now = core.clock.now.epochSeconds
        let claims = SecurityEventClaims(
            iss: core.issuer, aud: client.id, iat: now, jti: SecureRandom.token(byteCount: 16),
            subID: .init(format: "iss_sub", iss: core.issuer, sub: subject),
            events: [eventType: .init(eventTimestamp: now, initiatingEntity: "admin")])
        var header = JWTHeader()
        header.typ = Self.type
        if fault == .unpublishedKey { return try await core.keys.signWithUnpublishedKey(claims, header: header) }
        return try await IDTokenSigning(core: core).sign(claims, for: client, header: header)
    }
}

/// The claims of a Security Event Token as the emulator sends them (RFC 8417 §2.2, SSF 1.0's `sub_id`).
struct SecurityEventClaims: JWTPayload, Equatable {
    /// A subject identifier (RFC 9493) in the `iss_sub` format.
    struct SubjectIdentifier: Codable, Equatable {
        var format: String
        var iss: String
        var sub: String
    }

    /// The body of one event: when it happened and who started it (CAEP's common fields).
    struct Event: Codable, Equatable {
        var eventTimestamp: Int
        var initiatingEntity: String

        enum CodingKeys: String, CodingKey {
            case eventTimestamp = "event_timestamp"
            case initiatingEntity = "initiating_entity"
        }
    }

    var iss: String
    var aud: String
    var iat: Int
    var jti: String
    var subID: SubjectIdentifier
    var events: [String: Event]

    enum CodingKeys: String, CodingKey {
        case iss, aud, iat, jti, events
        case subID = "sub_id"
    }

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
