import Foundation
import Logging
import Testing

@testable import AuthEmulator

/// The emulator remembers each access token it issues (for introspection and `/userinfo`) until it expires; it must
/// not remember expired ones without bound, nor pay for a pass over every remembered token on each grant.
@Suite("AuthEmulator: remembered access tokens")
struct AccessTokenMemoryTests {
    private func state(_ clock: EmulatorClock) -> EmulatorState {
        EmulatorState(users: [], snapshot: nil, stateFile: nil, clock: clock, logger: Logger(label: "tests.emulator"))
    }

    @Test("expired access tokens are dropped as new ones come; live ones are kept, however many")
    func expiredOnesGo() async {
        let clock = EmulatorClock()
        let state = state(clock)
        for index in 0..<1_000 {
            await state.recordAccessToken(
                jti: "old-\(index)", grantID: "g", expiresAt: clock.now.addingTimeInterval(60))
        }
        clock.advance(by: 120)
        #expect(await !state.isAccessTokenActive(jti: "old-0"), "expired, though still remembered")
        for index in 0..<5_000 {
            await state.recordAccessToken(
                jti: "new-\(index)", grantID: "g", expiresAt: clock.now.addingTimeInterval(3_600))
        }
        let remembered = await state.accessTokens
        #expect(remembered.count == 5_000, "the 1,000 expired ones went, no live one did (\(remembered.count))")
        #expect(remembered.keys.allSatisfy { $0.hasPrefix("new-") })
    }

    @Test("a sweep comes once the remembered tokens have doubled: amortised O(1) per grant")
    func sweepsAreRare() async {
        let clock = EmulatorClock()
        let state = state(clock)
        var sweeps = 0
        var threshold = await state.accessTokenSweepAt
        for index in 0..<20_000 {
            await state.recordAccessToken(jti: "t-\(index)", grantID: "g", expiresAt: clock.now.addingTimeInterval(60))
            let now = await state.accessTokenSweepAt
            if now != threshold { (sweeps, threshold) = (sweeps + 1, now) }
        }
        #expect(sweeps <= 5, "20,000 live tokens: \(sweeps) sweeps")
    }
}
