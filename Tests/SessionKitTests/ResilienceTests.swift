import AuthEmulator
import Foundation
import SecureStore
import SessionKitTestSupport
import SessionKitTesting
import Synchronization
import Testing

@testable import SessionKit

#if canImport(Glibc)
    import Glibc
#endif

/// The pid of a process that has exited, so its lease is stale.
private func deadProcessID() throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/true")
    try process.run()
    process.waitUntilExit()
    return process.processIdentifier
}

/// Writes a renewal lease into the stored record, as another process that began a renewal would.
private func plantLease(_ live: LiveSession, pid: Int32) throws {
    let store = try LiveSession.makeStore(live.folder)
    let key = live.session.storeKey
    try store.update(forKey: key) { data in
        var record = try JSONDecoder().decode(SessionRecord.self, from: try #require(data))
        let now = live.time.clock.now()
        record.generation += 1
        record.renewal = RenewalLease(
            owner: "another-process", pid: pid, host: RenewalLease.currentHost, startedAt: now,
            expiresAt: now.addingTimeInterval(30)
        )
        return try JSONEncoder().encode(record)
    }
}

@Suite("Resilience: crashed renewers, offline profile, failed revocation, skewed clocks, rotated keys")
struct ResilienceTests {
    @Test("a lease left by a process that died mid-renewal is taken over at once")
    func deadLease() async throws {
        try await LiveEmulator.with { emulator in
            let live = try LiveSession.make(emulator)
            defer { live.cleanUp() }
            let credentials = try await live.signIn()
            live.expire(credentials)
            try plantLease(live, pid: try deadProcessID())
            let session = try live.relaunched()
            let started = ContinuousClock.now
            let renewed = try await session.credentials()
            #expect(renewed.accessToken != credentials.accessToken)
            #expect(ContinuousClock.now - started < .seconds(15), "it did not wait (30 s) for the dead process's lease")
        }
    }

    @Test("a live process's lease is waited for, and a wait that runs out is retryable with the session kept")
    func liveLease() async throws {
        try await LiveEmulator.with { emulator in
            let live = try LiveSession.make(emulator)
            defer { live.cleanUp() }
            let credentials = try await live.signIn()
            live.expire(credentials)
            let sleeper = Process()
            sleeper.executableURL = URL(fileURLWithPath: "/bin/sleep")
            sleeper.arguments = ["30"]
            try sleeper.run()
            defer { sleeper.terminate() }
            try plantLease(live, pid: sleeper.processIdentifier)
            let session = try live.relaunched(policy: RenewalPolicy(waitTimeout: .seconds(1)))
            try await emulator.controls.resetRequestCounts()
            await #expect {
                _ = try await session.credentials()
            } throws: { error in
                let error = error as? SessionKitError
                return error?.code == .timeout && error?.isRetryable == true
            }
            #expect(try await emulator.controls.requestCounts()[.token] == 0, "it never spent the refresh token")
            #expect(try await session.hasSession())
        }
    }

    @Test("the cached profile is served when the provider cannot be reached")
    func offlineProfile() async throws {
        try await LiveEmulator.with { emulator in
            let live = try LiveSession.make(emulator)
            defer { live.cleanUp() }
            try await live.signIn()
            let online = try await live.session.userInfo()
            try await emulator.controls.inject(.dropConnection, into: .userinfo)
            let offline = try await live.session.userInfo()
            #expect(offline == online)
            try await emulator.controls.clearFaults(.userinfo)
            try await emulator.controls.inject(.status(401), into: .userinfo)
            await #expect(throws: SessionKitError.self) { _ = try await live.session.userInfo() }
        }
    }

    @Test("logout clears the session even when revocation fails, and says so")
    func revocationFails() async throws {
        try await LiveEmulator.with { emulator in
            let live = try LiveSession.make(emulator)
            defer { live.cleanUp() }
            try await live.signIn()
            try await emulator.controls.inject(.status(503), into: .revoke)
            let result = try await live.session.logout()
            #expect(result.hadSession)
            #expect(!result.revoked)
            #expect(result.revocationError?.code == .serverError)
            #expect(try await !live.session.hasSession())
        }
    }

    /// Issue 17, item 7: a discovery document or key set may come from a cache whose `Date` is old; only
    /// answers made for the request (token, userinfo) teach the clock offset.
    @Test("the clock offset is learned from token and userinfo answers, not from discovery or the key set")
    func clockOffsetSources() async throws {
        try await LiveEmulator.with { emulator in
            let live = try LiveSession.make(emulator)
            defer { live.cleanUp() }
            live.time.advance(by: -7200)
            _ = try await live.provider.metadata()
            try await live.provider.preloadSigningKeys()
            #expect(await live.provider.serverClockOffset == 0, "discovery and JWKS taught nothing")
            try await live.signIn()
            #expect(abs(await live.provider.serverClockOffset - 7200) < 5, "the token answer did")
        }
    }

    @Test("a device clock two hours slow still validates ID tokens, using the provider's Date header")
    func skewedClock() async throws {
        try await LiveEmulator.with { emulator in
            let live = try LiveSession.make(emulator)
            defer { live.cleanUp() }
            live.time.advance(by: -7200)
            let credentials = try await live.signIn()
            #expect(credentials.idTokenClaims?.subject == AuthEmulator.User.aliceID)
            let offset = await live.provider.serverClockOffset
            #expect(abs(offset - 7200) < 5)
        }
    }

    @Test("after a key rotation the JWKS is refetched once and the new key verifies renewals")
    func keyRotation() async throws {
        try await LiveEmulator.with { emulator in
            var configuration = try emulator.providerConfiguration()
            configuration.jwksRefetchInterval = .zero
            let provider = ProviderClient(configuration: configuration)
            let credentials = try await provider.signIn(
                username: AuthEmulator.User.aliceEmail, password: Secret(AuthEmulator.User.alicePassword)
            )
            let oldKey = credentials.idTokenClaims?.header.keyID
            let newKey = try await emulator.controls.rotateSigningKeys()
            try await emulator.controls.resetRequestCounts()
            let renewed = try await provider.renew(credentials)
            #expect(renewed.idTokenClaims?.header.keyID == newKey)
            #expect(newKey != oldKey)
            #expect(try await emulator.controls.requestCounts()[.jwks] == 1)
        }
    }

    @Test("device polling slows down by 5 s when the provider says slow_down")
    func slowDown() async throws {
        try await LiveEmulator.with { emulator in
            let transport = RecordingTransport()
            let provider = ProviderClient(configuration: try emulator.providerConfiguration(), transport: transport)
            let authorization = try await provider.startDeviceAuthorization()
            // A client that polls with no pause until the provider tells it to slow down.
            let eager = DeviceAuthorization(
                userCode: authorization.userCode, verificationURI: authorization.verificationURI,
                verificationURIComplete: authorization.verificationURIComplete, expiresAt: authorization.expiresAt,
                interval: 0, deviceCode: authorization.deviceCode
            )
            let polling = Task { try await provider.pollDeviceAuthorization(eager) }
            try await waitUntil { transport.exchanges.contains { $0.error == "slow_down" } }
            // Let the emulator's clock pass its grown interval, so the next poll is on time.
            try await emulator.controls.approveDevice(
                userCode: authorization.userCode, userID: AuthEmulator.User.aliceID)
            try await emulator.controls.advanceClock(by: 10)
            let credentials = try await polling.value
            #expect(credentials.canRenew)
            let exchanges = transport.exchanges
            let slowDown = try #require(exchanges.firstIndex { $0.error == "slow_down" })
            let next = try #require(exchanges.indices.first { $0 > slowDown })
            let pause = exchanges[next].sent.timeIntervalSince(exchanges[slowDown].received)
            #expect(pause >= 4.9, "after slow_down the next poll came \(pause) s later, not 5 s")
        }
    }
}

/// The real transport, recording when each request went out, when its answer came, and its OAuth error.
private final class RecordingTransport: HTTPTransport {
    struct Exchange: Sendable {
        let sent: Date
        let received: Date
        let error: String?
    }

    private let inner = AsyncHTTPClientTransport()
    private let log = Mutex<[Exchange]>([])

    var exchanges: [Exchange] { log.withLock { $0 } }

    func send(_ request: HTTPRequest, timeout: Duration) async throws(SessionKitError) -> HTTPResponse {
        let sent = Date()
        let response = try await inner.send(request, timeout: timeout)
        let error = (try? JSONValue(parsing: response.body))?["error"]?.stringValue
        log.withLock { $0.append(Exchange(sent: sent, received: Date(), error: error)) }
        return response
    }
}

/// Issue 12, item 2 (OpenID Connect Core 5.3.2). The emulator always answers with the token's own user, so a
/// transport in front of it rewrites the userinfo answer's `sub`: the only fake part, said here.
@Suite("A userinfo answer about another user is refused")
struct UserInfoSubjectTests {
    @Test("another sub: validationFailed (subject), not retryable, session kept, nothing cached")
    func foreignSubject() async throws {
        try await LiveEmulator.with { emulator in
            let live = try LiveSession.make(emulator)
            defer { live.cleanUp() }
            try await live.signIn()
            let session = SessionManager(
                provider: ProviderClient(
                    configuration: live.configuration,
                    transport: RewritingTransport(answersTo: "/userinfo") {
                        $0["sub"] = .string(AuthEmulator.User.bobID)
                    }, clock: live.time.clock),
                store: try LiveSession.makeStore(live.folder), clock: live.time.clock)
            do {
                _ = try await session.userInfo()
                Issue.record("a profile of another user must be refused")
            } catch let error as SessionKitError {
                #expect(error.code == .validationFailed && error.failedCheck == .subject, "\(error)")
                #expect(!error.isRetryable)
            }
            #expect(try await session.hasSession())
            #expect(try await session.cachedProfile() == nil)
            #expect(try await live.session.userInfo().subject == AuthEmulator.User.aliceID, "the real one passes")
        }
    }
}
