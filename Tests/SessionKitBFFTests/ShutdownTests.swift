import AuthEmulator
import Foundation
import NIOHTTP1
import SessionKitServer
import SessionKitTesting
import Testing

/// SIGTERM, as an orchestrator sends it before it replaces an instance: the instance stops accepting, lets the
/// requests under way finish (their renewals committed), stops its services, and exits 0.
@Suite("Graceful shutdown", .enabled(if: BFFPostgres.shouldRun, BFFPostgres.skipNote))
struct ShutdownTests {
    @Test("SIGTERM in the middle of a renewal storm: calls under way are answered, no renewal is lost, exit 0")
    func sigtermDuringStorm() async throws {
        try await LiveEmulator.with { emulator in
            let deployment = BFFPostgres.Deployment()
            let folder = try TemporaryFolder(prefix: "sessionkit-bff")
            defer { folder.remove() }
            let keyFile = try ProcessInstance.keyFile(for: deployment, in: folder)
            let users = 40
            let ids = try await ExpiredSessions.create(users, emulator: emulator, store: try await deployment.store())
            let doomed = try await ProcessInstance.start(emulator: emulator, deployment: deployment, keyFile: keyFile)
            let survivor = try await ProcessInstance.start(
                emulator: emulator, deployment: deployment, keyFile: keyFile, publicURL: doomed.url)
            try await emulator.controls.resetRequestCounts()
            // Each refresh takes 300 ms at the provider, so that renewals are under way when SIGTERM arrives.
            try await emulator.controls.inject(AuthEmulator.Fault.latency(0.3).only(.refreshToken), into: .token)
            let browser = CookieBrowser()
            let storm = Task {
                try await withThrowingTaskGroup(of: Int?.self) { group in
                    for id in ids {
                        group.addTask {
                            // A connection refused once the instance stopped accepting is no answer: nil.
                            try? await browser.send(
                                .GET, doomed.at("/api/userinfo"),
                                headers: SealedCookies.header(id, secret: deployment.key) + [("X-CSRF", "1")],
                                cookies: false
                            ).status
                        }
                    }
                    return try await group.reduce(into: [Int?]()) { $0.append($1) }
                }
            }
            while try await emulator.controls.requestCounts()[.refreshToken] < 5 {
                try await Task.sleep(for: .milliseconds(10))
            }
            let status = await doomed.terminate(within: .seconds(20))
            let answers = try await storm.value
            #expect(status == 0, "the instance ended gracefully (status \(String(describing: status)))")
            let answered = answers.compactMap { $0 }
            #expect(!answered.isEmpty, "calls under way at SIGTERM were answered")
            #expect(answered.allSatisfy { $0 == 200 }, "answers: \(answered.sorted())")

            // Every session survives, renewed once in all: through the other instance, each is served.
            try await emulator.controls.clearFaults()
            for id in ids {
                let page = try await browser.send(
                    .GET, survivor.at("/api/userinfo"),
                    headers: SealedCookies.header(id, secret: deployment.key) + [("X-CSRF", "1")], cookies: false)
                #expect(page.status == 200)
            }
            #expect(try await emulator.controls.requestCounts()[.refreshToken] == users, "one refresh per user")
            await browser.shutdown()
            await survivor.stop()
        }
    }
}
