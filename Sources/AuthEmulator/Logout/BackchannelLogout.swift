import AsyncHTTPClient
import Foundation
import Logging
import SessionKitSupport

/// Sends logout tokens to the clients owed one (OIDC Back-Channel Logout 1.0 §2.5–2.8) and records how each
/// delivery went.
///
/// Deliveries run concurrently, each bounded by ``AuthEmulator/Configuration/backchannelLogoutTimeout``, and the
/// caller waits for all of them: `/oidc/logout` answers once every receiver has answered or timed out (so about
/// the timeout at most), and a test that got the answer finds every delivery in the log. A receiver that fails
/// is recorded and not retried. Clients without a back-channel logout URI are skipped.
struct BackchannelLogout: Sendable {
    typealias Delivery = AuthEmulator.BackchannelDelivery
    let core: EmulatorCore

    /// One token per client issued tokens in each ended session, naming the user (`sub`) and the session (`sid`).
    func sessionsEnded(_ sessions: [EndedSession]) async -> [Delivery] {
        await deliver(
            sessions.flatMap { session in
                session.clientIDs.map { LogoutMessage(clientID: $0, subject: session.userID, sid: session.sid) }
            })
    }

    /// One token per client, naming only the user: every session of theirs at that client ends (§2.4: a logout
    /// token without `sid` means all of the user's sessions). For an administrator ending a user or their grants.
    func userLoggedOut(_ userID: String, atClients clientIDs: Set<String>) async -> [Delivery] {
        await deliver(clientIDs.sorted().map { LogoutMessage(clientID: $0, subject: userID, sid: nil) })
    }

    /// Delivers `messages` to the clients that have a back-channel logout URI, concurrently; returns the records
    /// in the order of `messages`, after adding them to the log.
    func deliver(_ messages: [LogoutMessage]) async -> [Delivery] {
        let targets = messages.compactMap { message -> (LogoutMessage, AuthEmulator.Client, URL)? in
            guard let client = core.client(id: message.clientID),
                let uri = core.backchannel.uri(forClient: message.clientID)
            else { return nil }
            return (message, client, uri)
        }
        guard !targets.isEmpty else { return [] }
        let timeout = core.configuration.backchannelLogoutTimeout
        let deliveries = await BackchannelTransport.withClient(timeout: timeout) { http in
            await withTaskGroup(of: (Int, Delivery?).self) { group in
                for (index, (message, client, uri)) in targets.enumerated() {
                    group.addTask {
                        (index, await deliver(message, to: client, at: uri, using: http, timeout: timeout))
                    }
                }
                var results: [(Int, Delivery)] = []
                for await (index, delivery) in group {
                    if let delivery { results.append((index, delivery)) }
                }
                return results.sorted { $0.0 < $1.0 }.map(\.1)
            }
        }
        core.backchannel.record(deliveries)
        return deliveries
    }

    private func deliver(
        _ message: LogoutMessage,
        to client: AuthEmulator.Client,
        at uri: URL,
        using http: HTTPClient,
        timeout: Double
    ) async -> Delivery? {
        let token: String
        do {
            token = try await LogoutTokenMinter(core: core).mint(message, for: client)
        } catch {
            core.logger.error("Logout token signing failed", metadata: ["error": "\(type(of: error))"])
            return nil
        }
        let sentAt = core.clock.now
        let start = ContinuousClock.now
        let outcome = await BackchannelTransport.post(token, to: uri, using: http, timeout: timeout)
        let elapsed = start.duration(to: .now)
        core.logger.debug(
            "Back-channel logout delivery",
            metadata: [
                "client": "\(client.id)",
                "outcome": "\(outcome.status.map { "HTTP \($0)" } ?? outcome.failure.map { "\($0)" } ?? "none")",
            ]
        )
        return Delivery(
            clientID: client.id,
            uri: uri,
            logoutToken: token,
            status: outcome.status,
            failure: outcome.failure,
            sentAt: sentAt,
            duration: elapsed.seconds
        )
    }
}
