import AuthEmulator
import Foundation
import SessionKitBFF
import SessionKitPostgres
import SessionKitTesting
import Testing

/// The example's readiness endpoint: 200 when the session store and the provider answer, 503 saying which one
/// does not.
@Suite("Readiness", .enabled(if: BFFPostgres.shouldRun, BFFPostgres.skipNote))
struct ReadinessTests {
    @Test("/ready: 200 with both up; 503 naming the provider when it is down, and the database when it is")
    func ready() async throws {
        try await LiveEmulator.with { emulator in
            let deployment = BFFPostgres.Deployment()
            let folder = try TemporaryFolder(prefix: "sessionkit-bff")
            defer { folder.remove() }
            let keyFile = try ProcessInstance.keyFile(for: deployment, in: folder)
            let app = try await ProcessInstance.start(emulator: emulator, deployment: deployment, keyFile: keyFile)
            let browser = CookieBrowser()
            let up = try await browser.get(app.at("/ready"))
            #expect(up.status == 200)
            #expect((up.json["database"] as? [String: Any])?["ok"] as? Bool == true, "\(up.text)")
            #expect((up.json["provider"] as? [String: Any])?["ok"] as? Bool == true, "\(up.text)")

            try await emulator.controls.inject(.status(503), into: .discovery)
            let providerDown = try await browser.get(app.at("/ready"))
            #expect(providerDown.status == 503)
            let provider = providerDown.json["provider"] as? [String: Any]
            let database = providerDown.json["database"] as? [String: Any]
            #expect(provider?["ok"] as? Bool == false, "\(providerDown.text)")
            #expect(database?["ok"] as? Bool == true)
            try await emulator.controls.clearFaults()
            await browser.shutdown()
            await app.stop()
        }
    }

    @Test("an instance whose database does not answer is not ready, and says so")
    func databaseDown() async throws {
        try await LiveEmulator.with { emulator in
            let deployment = BFFPostgres.Deployment()
            let unreachable = try await deployment.unreachableStore()
            let port = unreachable.configuration.port
            let instance = try await InProcessInstance.start(emulator: emulator, store: unreachable)
            let readiness = await instance.bff.readiness()
            #expect(!readiness.isReady)
            #expect(!readiness.database.ok && readiness.provider.ok)
            #expect(readiness.database.error?.contains("127.0.0.1:\(port)") == true, "\(String(describing: readiness))")
            #expect(readiness.database.error?.contains(unreachable.configuration.password ?? "no password") == false)
            await instance.stop()
        }
    }
}
