import Foundation
import Logging

/// The services every endpoint shares: configuration, clock, state, keys, faults, counters and the
/// back-channel logout registry.
final class EmulatorCore: Sendable {
    let configuration: AuthEmulator.Configuration
    /// The issuer with its trailing slash, e.g. `http://127.0.0.1:8080/`.
    let issuer: String
    /// The port the server listens on (not always the issuer's: see `publicIssuer`).
    let port: Int
    let clock: EmulatorClock
    let state: EmulatorState
    let keys: SigningKeys
    let faults: FaultInjector
    let logger: Logger
    /// The clients' back-channel logout URIs as they stand, and the delivery log.
    let backchannel: ClientEndpoints<AuthEmulator.BackchannelDelivery>
    /// The clients' Shared Signals receivers (push delivery) and the delivery log.
    let securityEvents: ClientEndpoints<AuthEmulator.SecurityEventDelivery>
    /// The session transfer tokens issued and not yet used (Native to Web SSO).
    let sessionTransfers = SessionTransfers()
    /// DPoP nonces and the proofs seen.
    let dpop: DPoPState
    /// Pushed authorization requests and the clients that must push.
    let pushed: PushedRequests
    /// Backchannel authentication requests (OpenID CIBA) awaiting the user's decision.
    let ciba = BackchannelRequests()
    /// The ping-mode clients' notification endpoints (OpenID CIBA) and the log of pings.
    let backchannelPings: ClientEndpoints<AuthEmulator.BackchannelPingDelivery>

    init(
        configuration: AuthEmulator.Configuration,
        issuer: String,
        port: Int,
        clock: EmulatorClock,
        state: EmulatorState,
        keys: SigningKeys,
        faults: FaultInjector,
        logger: Logger
    ) {
        self.configuration = configuration
        self.issuer = issuer
        self.port = port
        self.clock = clock
        self.state = state
        self.keys = keys
        self.faults = faults
        self.logger = logger
        self.backchannel = ClientEndpoints(clients: configuration.clients) { $0.backchannelLogoutURI }
        self.securityEvents = ClientEndpoints()
        self.backchannelPings = ClientEndpoints(clients: configuration.clients) { client in
            client.backchannelTokenDeliveryMode == .ping ? client.backchannelClientNotificationEndpoint : nil
        }
        self.dpop = DPoPState(requiresNonce: configuration.dpopNonceRequired)
        self.pushed = PushedRequests(clients: configuration.clients)
    }

    /// The Management API audience, `<issuer>api/v2/`.
    var managementAudience: String { issuer + "api/v2/" }
    /// The `/userinfo` audience Auth0 adds to tokens with `openid`.
    var userinfoAudience: String { issuer + "userinfo" }

    func client(id: String?) -> AuthEmulator.Client? {
        guard let id else { return nil }
        return configuration.clients.first { $0.id == id }
    }

    var scopes: ScopePolicy {
        ScopePolicy(
            managementAudience: managementAudience, apis: configuration.apis,
            offlineAccessIsAScope: configuration.offlineAccessIsAScope)
    }
}
