import AuthEmulator
import Foundation
import SessionKit
import SessionKitTesting
import Testing

@Suite("Valid credentials without renewal: the hot path of a command-line tool")
struct LocalCredentialsTests {
    @Test("localCredentials reads a relaunched manager's store and sends no request")
    func readsStore() async throws {
        try await LiveEmulator.with { emulator in
            let live = try LiveSession.make(emulator)
            defer { live.cleanUp() }
            let credentials = try await live.signIn()
            try await emulator.controls.resetRequestCounts()
            let relaunched = try live.relaunched()
            #expect(try relaunched.localCredentials(minTTL: 60) == credentials)
            #expect(try relaunched.localCredentials(scope: "openid") == nil, "another scope needs a renewal")
            let lifetime = try #require(credentials.expiresAt).timeIntervalSince(live.time.clock.now())
            // Longer than the provider's tokens live: a fresh token is as good as it gets, a used one is not.
            #expect(try relaunched.localCredentials(minTTL: lifetime + 60) == credentials)
            live.time.advance(by: lifetime * 0.2)
            #expect(try relaunched.localCredentials(minTTL: lifetime + 60) == nil, "no longer fresh")
            #expect(try await emulator.controls.requestCounts().byEndpoint.isEmpty)
        }
    }

    @Test("localCredentials is nil on an expired session and when signed out, and never renews")
    func expiredOrSignedOut() async throws {
        try await LiveEmulator.with { emulator in
            let live = try LiveSession.make(emulator)
            defer { live.cleanUp() }
            #expect(try live.session.localCredentials() == nil, "signed out")
            let credentials = try await live.signIn()
            live.expire(credentials)
            try await emulator.controls.resetRequestCounts()
            #expect(try live.session.localCredentials() == nil)
            #expect(try live.relaunched().localCredentials() == nil)
            #expect(try await emulator.controls.requestCounts()[.token] == 0)
            // The asynchronous path still renews what the synchronous one declined.
            let renewed = try await live.session.credentials()
            #expect(renewed.accessToken != credentials.accessToken)
            #expect(try live.session.localCredentials() == renewed)
        }
    }

    @Test("a relaunched manager's first credentials() on a valid session sends no request and says active")
    func coldCache() async throws {
        try await LiveEmulator.with { emulator in
            let live = try LiveSession.make(emulator)
            defer { live.cleanUp() }
            let credentials = try await live.signIn()
            try await emulator.controls.resetRequestCounts()
            let relaunched = try live.relaunched()
            var states = relaunched.stateUpdates().makeAsyncIterator()
            #expect(try await relaunched.credentials(minTTL: 60) == credentials)
            #expect(await states.next() == .active(until: credentials.expiresAt))
            #expect(try await emulator.controls.requestCounts().byEndpoint.isEmpty)
        }
    }
}
