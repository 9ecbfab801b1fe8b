import AuthEmulator
import Foundation
import NIOHTTP1
import SessionKit
import SessionKitServer
import SessionKitTesting
import Testing

@testable import SessionKitBFF

/// A back-channel logout of a user signed in many times (issue 46): every session ends on every instance.
///
/// The test prints how long it took, from the delivery of the logout token to instance A until the last of the
/// sessions was refused on instance B (`Benchmarks/backchannel.sh` runs it and reports the figure); it asserts only
/// that every session is refused on both instances, within a generous bound.
@Suite("Back-channel logout of many sessions", .enabled(if: BFFPostgres.shouldRun, BFFPostgres.skipNote))
struct ManySessionsLogoutTests {
    /// How many sessions the user has: `SESSIONKIT_BACKCHANNEL_SESSIONS`, 1,000 by default.
    static let count =
        ProcessInfo.processInfo.environment["SESSIONKIT_BACKCHANNEL_SESSIONS"].flatMap { Int($0) } ?? 1000

    @Test("one logout token sent to A ends the user's 1,000 sessions on A and on B")
    func thousandSessions() async throws {
        let configuration = LiveEmulator.configuration { $0.backchannelLogoutTimeout = 60 }
        try await LiveEmulator.with(configuration) { emulator in
            let deployment = BFFPostgres.Deployment()
            let a = try await InProcessInstance.start(emulator: emulator, store: try await deployment.store())
            let b = try await InProcessInstance.start(
                emulator: emulator, store: try await deployment.store(), publicURL: a.url)
            try await emulator.controls.setBackchannelLogoutURI(
                a.at("/auth/backchannel-logout"), forClient: AuthEmulator.Client.confidentialID)
            let browser = CookieBrowser(connectionsPerHost: 16)
            do {
                let ids = try await Self.signIn(Self.count, emulator: emulator, on: a)
                // Each session used once on both instances: both hold it in memory.
                let used = try await Self.statuses(ids, at: [a, b], browser: browser)
                #expect(used.allSatisfy { $0 == 200 }, "every session works on A and B before the logout")
                #expect(a.bff.sessions.cachedCount == ids.count && b.bff.sessions.cachedCount == ids.count)

                let sent = ContinuousClock.now
                async let delivered = emulator.controls.sendLogoutToken(
                    toClient: AuthEmulator.Client.confidentialID, subject: AuthEmulator.User.aliceID, sid: nil)
                let lastRefusal = try await Self.untilRefused(ids, on: b, browser: browser, within: .seconds(60))
                let delivery = try await delivered
                let answered = ContinuousClock.now - sent
                #expect(delivery.status == 200, "A accepted the logout token: \(delivery)")
                #expect(lastRefusal != nil, "every session is refused on B")
                let onA = try await Self.statuses(ids, at: [a], browser: browser)
                #expect(onA.allSatisfy { $0 == 401 }, "every session is refused on A")
                let last = lastRefusal.map { "\(Self.milliseconds($0 - sent)) ms" } ?? "never"
                print(
                    "backchannel-logout sessions=\(ids.count) answered_ms=\(Self.milliseconds(answered)) "
                        + "last_refusal_on_b=\(last)")
            } catch {
                Issue.record(error)
            }
            await browser.shutdown()
            await a.stop()
            await b.stop()
        }
    }

    /// Signs alice in `count` times with the password grant (a refresh token each) and keeps each session as A's
    /// callback does: in the directory and in the session index under her `sub`.
    static func signIn(_ count: Int, emulator: AuthEmulator, on instance: InProcessInstance) async throws
        -> [SessionID]
    {
        let provider = instance.bff.sessions.provider
        let bff = instance.bff
        return try await withThrowingTaskGroup(of: SessionID.self) { group in
            var ids: [SessionID] = []
            for index in 0..<count {
                if index >= 16, let id = try await group.next() { ids.append(id) }
                group.addTask {
                    let credentials = try await provider.signIn(
                        username: AuthEmulator.User.aliceEmail, password: Secret(AuthEmulator.User.alicePassword))
                    let claims = try #require(credentials.idTokenClaims)
                    #expect(claims.subject == AuthEmulator.User.aliceID)
                    let id = try await bff.sessions.create(credentials)
                    _ = try await bff.index.add(
                        account: id.account, subject: claims.subject, sid: claims.sessionID,
                        expiresAt: Date().addingTimeInterval(bff.configuration.sessionLifetime))
                    return id
                }
            }
            return try await group.reduce(into: ids) { $0.append($1) }
        }
    }

    /// The status of `GET /auth/me` for every session on every instance, 16 at a time.
    static func statuses(_ ids: [SessionID], at instances: [InProcessInstance], browser: CookieBrowser)
        async throws -> [Int]
    {
        let requests = instances.flatMap { instance in ids.map { (instance, $0) } }
        return try await withThrowingTaskGroup(of: Int.self) { group in
            var statuses: [Int] = []
            for (index, (instance, id)) in requests.enumerated() {
                if index >= 16, let status = try await group.next() { statuses.append(status) }
                group.addTask { try await Self.me(id, on: instance, browser: browser) }
            }
            return try await group.reduce(into: statuses) { $0.append($1) }
        }
    }

    /// Asks `instance` about every session, again and again, until each has been refused once (401); returns when
    /// the last was, or `nil` when some were still served at `limit`.
    static func untilRefused(
        _ ids: [SessionID], on instance: InProcessInstance, browser: CookieBrowser, within limit: Duration
    ) async throws -> ContinuousClock.Instant? {
        let deadline = ContinuousClock.now + limit
        var served = ids
        var last = ContinuousClock.now
        while !served.isEmpty, ContinuousClock.now < deadline {
            let asking = served
            served = try await withThrowingTaskGroup(of: (SessionID, Int, ContinuousClock.Instant).self) { group in
                var still: [SessionID] = []
                var answers: [(SessionID, Int, ContinuousClock.Instant)] = []
                for (index, id) in asking.enumerated() {
                    if index >= 16, let answer = try await group.next() { answers.append(answer) }
                    group.addTask { (id, try await Self.me(id, on: instance, browser: browser), ContinuousClock.now) }
                }
                for try await answer in group { answers.append(answer) }
                for (id, status, at) in answers {
                    if status == 401 { last = max(last, at) } else { still.append(id) }
                }
                return still
            }
        }
        return served.isEmpty ? last : nil
    }

    /// `GET /auth/me` on `instance` with the session's cookie: 200 while it is served, 401 once refused.
    static func me(_ id: SessionID, on instance: InProcessInstance, browser: CookieBrowser) async throws -> Int {
        try await browser.send(.GET, instance.at("/auth/me"), headers: SealedCookies.header(id), cookies: false).status
    }

    static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
    }
}
