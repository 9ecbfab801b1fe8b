import Foundation
import SessionKitSupport

/// The emulator's side of CIBA ping mode (OpenID CIBA Core 1.0 section 10.2): once the user decided on a ping-mode
/// request, posts `{"auth_req_id": ...}` as JSON to the client's notification endpoint with
/// `Authorization: Bearer <client_notification_token>`, misbehaving as ``AuthEmulator/BackchannelPingFault`` says,
/// and records the deliveries. Approval and denial are pinged alike: the client learns which at the token endpoint.
struct BackchannelPing: Sendable {
    let core: EmulatorCore

    /// Pings for `request` (a decided ping-mode request) and waits for the answers, each bounded by the back-channel
    /// logout timeout; returns the deliveries, also added to the log. Nothing when the request is poll-mode or its
    /// client has no endpoint any more.
    @discardableResult
    func notify(
        _ request: BackchannelRequests.Record, fault: AuthEmulator.BackchannelPingFault
    ) async -> [AuthEmulator.BackchannelPingDelivery] {
        guard let ping = request.ping, let uri = core.backchannelPings.uri(forClient: request.clientID) else {
            return []
        }
        guard fault != .dropped else {
            let dropped = AuthEmulator.BackchannelPingDelivery(
                clientID: request.clientID, uri: uri, fault: fault, status: nil, failure: nil, sentAt: core.clock.now)
            core.backchannelPings.record([dropped])
            return [dropped]
        }
        let token = fault == .wrongToken ? SecureRandom.token() : ping.clientNotificationToken
        let body = (try? JSONTextWriter.write(["auth_req_id": .string(ping.authReqID)])) ?? []
        let attempts = fault == .duplicate ? 2 : 1
        let timeout = core.configuration.backchannelLogoutTimeout
        let deliveries = await BackchannelTransport.post(
            String(decoding: body, as: UTF8.self), type: "application/json", to: uri,
            headers: [("Authorization", "Bearer " + token)], attempts: attempts, timeout: timeout,
            now: { core.clock.now }
        ).map { sent in
            AuthEmulator.BackchannelPingDelivery(
                clientID: request.clientID, uri: uri, fault: fault, status: sent.outcome.status,
                failure: sent.outcome.failure, sentAt: sent.sentAt)
        }
        core.backchannelPings.record(deliveries)
        return deliveries
    }
}
