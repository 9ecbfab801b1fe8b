import AuthEmulator
import Foundation
import NIOHTTP1
import SecureStore
import SessionKit
import SessionKitTesting
import Testing

/// The back end for front ends' sign-in with pushed authorization requests (RFC 9126): `/auth/login` pushes with
/// the client's secret and sends the browser with only `client_id` and `request_uri`; a refused push is said
/// plainly and keeps the session. In process and as `sessionkit-bff --par`, sessions in memory.
@Suite("Back end for front ends: sign-in with pushed authorization requests")
struct PushedSignInTests {
    private static func memoryStore() -> SynchronousStoreAdapter {
        SynchronousStoreAdapter(MemoryStore(service: "tests.bff-par.\(UUID().uuidString)"))
    }

    /// The names of `url`'s query parameters.
    private static func queryNames(_ url: URL?) -> Set<String> {
        Set(url.flatMap { URLComponents(url: $0, resolvingAgainstBaseURL: false)?.queryItems }?.map(\.name) ?? [])
    }

    @Test("a provider that requires PAR for the back end's client: /auth/login pushes, the sign-in completes")
    func requiredByProvider() async throws {
        let configuration = LiveEmulator.configuration { configuration in
            configuration.clients = configuration.clients.map { client in
                var client = client
                client.requiresPushedAuthorizationRequests = client.id == AuthEmulator.Client.confidentialID
                return client
            }
        }
        try await LiveEmulator.with(configuration) { emulator in
            let instance = try await InProcessInstance.start(emulator: emulator, store: Self.memoryStore())
            let browser = CookieBrowser()
            do {
                let login = try await browser.get(instance.at("/auth/login"))
                #expect(login.status == 303)
                #expect(
                    Self.queryNames(login.location) == ["client_id", "request_uri"],
                    "\(String(describing: login.location))")
                #expect(try await browser.signIn(through: instance.url).status == 303)
                let me = try await browser.get(instance.at("/auth/me"))
                #expect(me.status == 200 && me.json["email"] as? String == AuthEmulator.User.aliceEmail)
                #expect(try await emulator.controls.requestCounts()[.pushedAuthorization] == 2)
            } catch {
                Issue.record(error)
            }
            await browser.shutdown()
            await instance.stop()
        }
    }

    @Test("a push refused with 400: /auth/login answers 502 sign_in_refused, and the signed-in session is kept")
    func refusedPushKeepsSession() async throws {
        try await LiveEmulator.with { emulator in
            let instance = try await InProcessInstance.start(
                emulator: emulator, store: Self.memoryStore(), pushedAuthorization: .always)
            let browser = CookieBrowser()
            do {
                #expect(try await browser.signIn(through: instance.url).status == 303)
                try await emulator.controls.inject(.status(400), into: .pushedAuthorization)
                let refused = try await browser.get(instance.at("/auth/login"))
                #expect(refused.status == 502)
                #expect(refused.json["error"] as? String == "sign_in_refused", "\(refused.text)")
                #expect((refused.json["message"] as? String)?.contains("Any session you have is kept") == true)
                #expect(!refused.text.contains(AuthEmulator.Client.confidentialSecret))
                let me = try await browser.get(instance.at("/auth/me"))
                #expect(me.status == 200, "the session is kept: \(me.text)")
                try await emulator.controls.clearFaults()
                #expect(try await browser.signIn(through: instance.url).status == 303, "and the next sign-in works")
            } catch {
                Issue.record(error)
            }
            await browser.shutdown()
            await instance.stop()
        }
    }

    @Test("sessionkit-bff --par: the example pushes where the provider does not require it, and signs in")
    func exampleFlag() async throws {
        try await LiveEmulator.with { emulator in
            let folder = try TemporaryFolder(prefix: "sessionkit-bff-par")
            defer { folder.remove() }
            let keyFile = try ProcessInstance.keyFile(for: BFFPostgres.Deployment(), in: folder)
            let instance = try await ProcessInstance.startInMemory(
                emulator: emulator, keyFile: keyFile, extraArguments: ["--par"])
            let browser = CookieBrowser()
            do {
                let login = try await browser.get(instance.at("/auth/login"))
                #expect(Self.queryNames(login.location) == ["client_id", "request_uri"])
                #expect(try await browser.signIn(through: instance.url).status == 303)
                let me = try await browser.get(instance.at("/auth/me"))
                #expect(me.status == 200 && me.json["email"] as? String == AuthEmulator.User.aliceEmail)
            } catch {
                Issue.record(error)
            }
            await browser.shutdown()
            await instance.stop()
        }
    }
}
