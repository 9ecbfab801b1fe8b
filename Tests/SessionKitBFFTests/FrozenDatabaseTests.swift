import AuthEmulator
import Foundation
import NIOHTTP1
import SessionKit
import SessionKitServer
import SessionKitTestSupport
import SessionKitTesting
import Testing

/// PostgreSQL hung, not down, under two `sessionkit-bff` processes: the case issue 23 was filed for, where a few
/// renewals waiting on the database took every thread and a user whose token was valid in memory got no answer
/// for as long as the hang lasted. Freezing stops the whole cluster, so this runs with the BFF suites, one test at
/// a time (`--no-parallel`).
@Suite(
    "A hung database stalls no browser whose session is valid", .serialized,
    .enabled(if: BFFPostgres.shouldRun, BFFPostgres.skipNote),
    .enabled(
        if: FrozenPostgres.isAvailable || TestPostgresEnvironment.isRequired,
        Comment(rawValue: FrozenPostgres.unavailableReason))
)
struct FrozenDatabaseTests {
    @Test("two processes, PostgreSQL frozen: valid sessions answered within 100 ms while 20 renewals wait; all kept")
    func validSessionsAnswered() async throws {
        try await LiveEmulator.with { emulator in
            let deployment = BFFPostgres.Deployment()
            let folder = try TemporaryFolder(prefix: "sessionkit-bff")
            defer { folder.remove() }
            let keyFile = try ProcessInstance.keyFile(for: deployment, in: folder)
            let store = try await deployment.store()
            let valid = try await ExpiredSessions.createValid(3, emulator: emulator, store: store)
            let expired = try await ExpiredSessions.create(20, emulator: emulator, store: store)
            let a = try await ProcessInstance.start(emulator: emulator, deployment: deployment, keyFile: keyFile)
            let b = try await ProcessInstance.start(
                emulator: emulator, deployment: deployment, keyFile: keyFile, publicURL: a.url)
            // The waiting users' browsers and the valid one's are apart, as they are in the world: requests the
            // instances hold must not hold up the others in this process's own connection pool.
            let browser = CookieBrowser()
            let waitingBrowsers = CookieBrowser(connectionsPerHost: 32)
            @Sendable func call(
                _ id: SessionID, on instance: ProcessInstance, through browser: CookieBrowser
            ) async throws -> Int {
                try await browser.send(
                    .GET, instance.at("/api/userinfo"),
                    headers: SealedCookies.header(id, secret: deployment.key) + [("X-CSRF", "1")], cookies: false
                ).status
            }
            do {
                // Each valid session used once on each instance, which now holds it in memory.
                for id in valid {
                    for instance in [a, b] { #expect(try await call(id, on: instance, through: browser) == 200) }
                }
                let refreshesBefore = try await emulator.controls.requestCounts()[.refreshToken]
                let frozen = try FrozenPostgres.freeze()
                var thawed = false
                defer { if !thawed { frozen.thaw() } }
                let renewals = Task {
                    try await withThrowingTaskGroup(of: Int.self) { group in
                        for (index, id) in expired.enumerated() {
                            group.addTask {
                                try await call(id, on: index.isMultiple(of: 2) ? a : b, through: waitingBrowsers)
                            }
                        }
                        return try await group.reduce(into: [Int]()) { $0.append($1) }
                    }
                }
                try await Task.sleep(for: .milliseconds(300))  // the renewals wait for the database
                var slowest = Duration.zero
                var statuses: [Int] = []
                for _ in 0..<20 {
                    for id in valid {
                        for instance in [a, b] {
                            let start = ContinuousClock.now
                            statuses.append(try await call(id, on: instance, through: browser))
                            slowest = max(slowest, ContinuousClock.now - start)
                        }
                    }
                }
                let waiting = try await emulator.controls.requestCounts()[.refreshToken] - refreshesBefore
                frozen.thaw()
                thawed = true
                #expect(statuses.count == 120 && statuses.allSatisfy { $0 == 200 }, "\(Set(statuses))")
                #expect(slowest < .milliseconds(100), "the slowest of 120 requests took \(slowest) while frozen")
                #expect(waiting == 0, "no renewal could lease its session before the database came back")
                let renewed = try await renewals.value
                #expect(renewed == Array(repeating: 200, count: expired.count), "\(renewed)")
                let refreshes = try await emulator.controls.requestCounts()[.refreshToken] - refreshesBefore
                #expect(refreshes == expired.count, "one refresh per session once the database came back")
            } catch {
                Issue.record(error)
            }
            await browser.shutdown()
            await waitingBrowsers.shutdown()
            await a.stop()
            await b.stop()
        }
    }
}
