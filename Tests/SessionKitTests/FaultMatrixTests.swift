import AuthEmulator
import Foundation
import SessionKit
import SessionKitTesting
import Testing

/// Breaks each step of a new process's renewal in turn (discovery, key set, token, userinfo), with each
/// kind of fault, and checks what the user keeps: the call fails with a retryable error or succeeds, the
/// session is never ended, and once the fault is gone it renews. The store write, the lock and the process
/// itself are broken in `RenewalSafetyTests` and `RenewalSafetyCLITests`.
@Suite("Fault matrix: every step of a renewal, every kind of fault, the session survives")
struct FaultMatrixTests {
    static let faults: [AuthEmulator.Fault] = [
        .status(500), .status(503), .status(429), .dropConnection, .truncatedBody, .malformedBody,
        AuthEmulator.Fault.stalledBody.delayed(by: 1.5), .processThenDrop,
        AuthEmulator.Fault.processThenStall.delayed(by: 1.5), .latency(1.5),
    ]

    @Test(
        "a fault at one step of a renewal keeps the session",
        arguments: [AuthEmulator.Endpoint.discovery, .jwks, .token, .userinfo], faults)
    func renewalStep(endpoint: AuthEmulator.Endpoint, fault: AuthEmulator.Fault) async throws {
        // Auth0's default reuse interval of 0 wherever the provider never processed the request, so a second
        // use of a refresh token would end the session; 30 s where it did and the answer was lost (or late).
        let processed = [.processThenDrop, .processThenStall, .none].contains(fault.action)
        let configuration = LiveEmulator.configuration { $0.refreshTokenRotation.reuseInterval = processed ? 30 : 0 }
        try await LiveEmulator.with(configuration) { emulator in
            let live = try LiveSession.make(emulator)
            defer { live.cleanUp() }
            live.expire(try await live.signIn())
            var impatient = live.configuration
            impatient.requestTimeout = .seconds(1)
            let session = SessionManager(
                provider: ProviderClient(configuration: impatient, clock: live.time.clock),
                store: try LiveSession.makeStore(live.folder),
                clock: live.time.clock
            )
            try await emulator.controls.inject(fault.times(1), into: endpoint)
            do {
                if endpoint == .userinfo {
                    _ = try await session.userInfo()
                } else {
                    _ = try await session.credentials()
                }
            } catch let error as SessionKitError {
                #expect(error.isRetryable, "\(fault.action) at \(endpoint): \(error)")
                #expect(error.code != .signInRequired)
            }
            #expect(try await session.hasSession(), "\(fault.action) at \(endpoint) kept the session")
            #expect(try await session.canRenew())
            try await emulator.controls.clearFaults()
            let renewed = try await live.relaunched().renew()
            #expect(renewed.isValid(now: live.time.clock.now()), "\(fault.action) at \(endpoint): renews afterwards")
        }
    }
}
