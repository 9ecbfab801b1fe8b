import AuthEmulator
import Crypto
import Foundation
import NIOHTTP1
import SecureStore
import SessionKitBFF
import SessionKitPostgres
import SessionKitTesting
import Testing

/// The profile routes on two instances sharing one PostgreSQL database: a storm of profile reads on both costs the
/// provider one client-credentials request, the back end's token shared through the store, sealed there.
@Suite("Profile through the back end", .enabled(if: BFFPostgres.shouldRun, BFFPostgres.skipNote))
struct ProfileStormTests {
    @Test("two instances, a hundred concurrent profile reads: one client_credentials request in all")
    func oneTokenForTheFleet() async throws {
        try await LiveEmulator.with { emulator in
            let deployment = BFFPostgres.Deployment()
            let profile = BackendForFrontend.ProfileRoutes(editableMetadataKeys: ["theme"])
            let first = try await InProcessInstance.start(emulator: emulator, store: try await deployment.store()) {
                $0.profile = profile
            }
            let second = try await InProcessInstance.start(emulator: emulator, store: try await deployment.store()) {
                $0.profile = profile
            }
            let browser = CookieBrowser(connectionsPerHost: 32)
            do {
                #expect(try await browser.signIn(through: first.url).status == 303)
                try await emulator.controls.resetRequestCounts()
                let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                    for index in 0..<100 {
                        let instance = index % 2 == 0 ? first : second
                        group.addTask { try await browser.get(instance.at("/auth/profile")).status }
                    }
                    return try await group.reduce(into: [Int]()) { $0.append($1) }
                }
                #expect(statuses.allSatisfy { $0 == 200 }, "\(Set(statuses))")
                let counts = try await emulator.controls.requestCounts()
                #expect(counts[AuthEmulator.GrantType.clientCredentials] == 1)
                #expect(counts[AuthEmulator.Endpoint.management] == 100)

                let patched = try await browser.send(
                    .PATCH, second.at("/auth/profile/metadata"),
                    headers: [("X-CSRF", "1"), ("Content-Type", "application/json")],
                    body: Data(#"{"theme":"light"}"#.utf8))
                #expect(patched.status == 200)
                let read = try await browser.get(first.at("/auth/profile"))
                #expect((read.json["user_metadata"] as? [String: Any])?["theme"] as? String == "light")
                #expect(try await emulator.controls.requestCounts()[AuthEmulator.GrantType.clientCredentials] == 1)

                // The token is shared through the store, sealed with the deployment's key: unreadable without it.
                let store = try await deployment.store()
                let key = try #require(try await store.keys().first { $0.hasPrefix("sessionkit.client-credentials.") })
                let item = try #require(try await store.data(forKey: key))
                #expect(String(decoding: item, as: UTF8.self).contains("access_token"))
                let stranger = try await deployment.store(sealedWith: SymmetricKey(size: .bits256))
                await #expect(throws: SecureStoreError.self) { try await stranger.data(forKey: key) }
            } catch {
                Issue.record(error)
            }
            await browser.shutdown()
            await first.stop()
            await second.stop()
        }
    }
}
