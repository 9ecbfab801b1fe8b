import AsyncHTTPClient
import AuthEmulator
import Foundation
import NIOCore
import NIOHTTP1
import SessionKitTesting
import Synchronization
import Testing

@Suite("Configuration, summary and persistence")
struct ConfigurationTests {
    @Test func jsonRoundTrip() throws {
        var configuration = AuthEmulator.Configuration(port: 9911, signingAlgorithm: .es256, testControlsEnabled: true)
        configuration.lifetimes.accessToken = 30
        configuration.refreshTokenRotation = .init(enabled: true, reuseInterval: 5)
        configuration.autoSignInUser = AuthEmulator.User.bobEmail
        configuration.stateFile = "/tmp/state.json"
        let data = try JSONEncoder().encode(configuration)
        #expect(try JSONDecoder().decode(AuthEmulator.Configuration.self, from: data) == configuration)
    }

    @Test func missingKeysTakeDefaults() throws {
        let json = #"{"port": 4000, "lifetimes": {"accessToken": 60}, "clients": [{"id": "cli"}]}"#
        let configuration = try JSONDecoder().decode(AuthEmulator.Configuration.self, from: Data(json.utf8))
        #expect(configuration.port == 4000)
        #expect(configuration.host == "127.0.0.1")
        #expect(configuration.lifetimes.accessToken == 60)
        #expect(configuration.lifetimes.idToken == 36_000)
        #expect(configuration.refreshTokenRotation.reuseInterval == 0)
        #expect(configuration.testControlsEnabled == false)
        #expect(configuration.clients.map(\.id) == ["cli"])
        #expect(configuration.clients[0].isPublic)
        #expect(configuration.users == [.alice, .bob])
    }

    @Test func loadsFromAFileAndReportsBadFiles() throws {
        let folder = try TemporaryFolder(prefix: "emulator-config")
        defer { folder.remove() }
        let directory = folder.url
        let good = directory.appendingPathComponent("good.json")
        try Data(#"{"testControlsEnabled": true}"#.utf8).write(to: good)
        #expect(try AuthEmulator.Configuration.load(contentsOf: good).testControlsEnabled)
        let bad = directory.appendingPathComponent("bad.json")
        try Data("{".utf8).write(to: bad)
        #expect(throws: AuthEmulatorError.self) { try AuthEmulator.Configuration.load(contentsOf: bad) }
        #expect(throws: AuthEmulatorError.self) {
            try AuthEmulator.Configuration.load(contentsOf: directory.appendingPathComponent("missing.json"))
        }
    }

    @Test func invalidConfigurationsAndTakenPortsFailToStart() async throws {
        await #expect(throws: AuthEmulatorError.self) {
            _ = try await AuthEmulator.start(configuration: .init(autoSignInUser: "nobody@example.com"))
        }
        await #expect(throws: AuthEmulatorError.self) {
            _ = try await AuthEmulator.start(configuration: .init(lifetimes: .init(accessToken: -1)))
        }
        await #expect(throws: AuthEmulatorError.self) {
            _ = try await AuthEmulator.start(configuration: .init(lifetimes: .init(devicePollInterval: Int.max)))
        }
        try await Harness.with { h in
            do {
                let clash = try await AuthEmulator.start(configuration: .init(port: h.emulator.port))
                await clash.stop()
                Issue.record("a taken port must fail")
            } catch let error as AuthEmulatorError {
                #expect(error.code == .bindFailed)
            }
        }
    }

    @Test func summaryAndDescriptionsHideRealSecrets() async throws {
        let carol = AuthEmulator.User(
            id: "auth0|custom", email: "carol@example.com", password: "carol-secret-pw", name: "Carol",
            nickname: "carol")
        let client = AuthEmulator.Client(id: "svc", name: "Service", secret: "svc-secret-value")
        #expect(!"\(carol)".contains("carol-secret-pw"))
        #expect(!"\(client)".contains("svc-secret-value"))
        let configuration = AuthEmulator.Configuration(clients: [client], users: [carol])
        #expect(!String(describing: configuration).contains("carol-secret-pw"))
        #expect(!String(reflecting: configuration).contains("svc-secret-value"))
        try await Harness.with(
            .testing {
                $0.users.append(carol)
                $0.clients.append(client)
            }
        ) { h in
            let summary = h.emulator.summary
            #expect(summary.contains(h.issuer))
            #expect(summary.contains(AuthEmulator.Client.nativeID))
            #expect(summary.contains("carol@example.com"))
            #expect(!summary.contains("carol-secret-pw"))
            #expect(!summary.contains("svc-secret-value"))
            #expect(summary.contains("\(AuthEmulator.User.alicePassword) [public demo fixture]"))
        }
    }

    @Test func stateFileKeepsGrantsMetadataAndKeysAcrossRestarts() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("emu-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        var refreshToken = ""
        var kid = ""
        try await Harness.with(.testing { $0.stateFile = path }) { h in
            refreshToken = try #require(try await h.signIn()["refresh_token"])
            kid = try await h.emulator.controls.currentKeyID()
            let token = try #require(
                try await h.signIn(scope: "update:current_user_metadata", audience: h.issuer + "api/v2/")[
                    "access_token"])
            let patched = try await h.send(
                .PATCH, "api/v2/users/auth0%7C65a1f0c0ffee000000000001", body: #"{"user_metadata":{"saved":true}}"#,
                contentType: "application/json", headers: h.bearer(token))
            #expect(patched.status == 200)
        }
        try await Harness.with(.testing { $0.stateFile = path }) { h in
            #expect(try await h.emulator.controls.currentKeyID() == kid)
            let refreshed = try await h.refresh(refreshToken)
            #expect(refreshed.status == 200)
            let token = try #require(
                try await h.signIn(scope: "read:current_user", audience: h.issuer + "api/v2/")["access_token"])
            let user = try await h.get("api/v2/users/auth0%7C65a1f0c0ffee000000000001", headers: h.bearer(token))
            #expect(user.json["user_metadata"]?.objectValue?["saved"] == true)
        }
    }

    @Test("a host that is not loopback is refused unless explicitly allowed (issue 17, item 7)")
    func nonLoopbackHost() async throws {
        for host in ["0.0.0.0", "192.0.2.10", "example.com", "::"] {
            await #expect(throws: AuthEmulatorError.self) {
                let emulator = try await AuthEmulator.start(configuration: .testing { $0.host = host })
                await emulator.stop()
            }
        }
        let decoded = try JSONDecoder().decode(
            AuthEmulator.Configuration.self, from: Data(#"{"host": "0.0.0.0", "allowNonLoopbackHost": true}"#.utf8))
        #expect(decoded.allowNonLoopbackHost)
        let local = try await AuthEmulator.start(configuration: .testing { $0.host = "localhost" })
        await local.stop()
    }

    /// A watcher thread samples the folder while the emulator rewrites its state file 150 times: a file created
    /// with the umask's mode and tightened afterwards (Foundation's atomic write) is caught at 0644.
    @Test("the state file and its temporary files are never readable by others, even for an instant")
    func stateFileMode() async throws {
        let folder = try TemporaryFolder(prefix: "emulator-state")
        defer { folder.remove() }
        let path = folder.path + "/state.json"
        let loose = Mutex<[String]>([])
        let stop = Atomic<Bool>(false)
        let watcher = Thread {
            while !stop.load(ordering: .relaxed) {
                for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] {
                    // attributesOfItem does not follow links (lstat), as a check of the file itself must not.
                    let attributes = try? FileManager.default.attributesOfItem(atPath: folder.path + "/" + name)
                    if let mode = attributes?[.posixPermissions] as? Int, mode & 0o077 != 0 {
                        loose.withLock { $0.append("\(name) \(String(mode & 0o777, radix: 8))") }
                    }
                }
            }
        }
        watcher.start()
        try await Harness.with(.testing { $0.stateFile = path }) { h in
            for _ in 0..<150 {
                let step = try await h.send(
                    .POST, "__emulator/clock/advance", body: #"{"seconds":1}"#, contentType: "application/json")
                #expect(step.status == 200)
            }
        }
        stop.store(true, ordering: .relaxed)
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(loose.withLock { $0 }.isEmpty, "\(loose.withLock { $0 }.prefix(5))")
        #expect(try TemporaryFolder.contents(folder.path) == ["state.json"])
    }

    @Test func stopClosesTheListener() async throws {
        let emulator = try await AuthEmulator.start(configuration: .testing())
        #expect(
            emulator.discoveryURL.absoluteString == emulator.issuer.absoluteString + ".well-known/openid-configuration")
        let http = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
        let request = HTTPClientRequest(url: emulator.discoveryURL.absoluteString)
        // A client dropped without its shutdown stops the whole test process (AsyncHTTPClient's debug check), so a
        // failure in between is recorded and the client shut down whatever happens.
        do {
            #expect(try await http.execute(request, timeout: .seconds(5)).status == .ok)
            await emulator.stop()
            await emulator.waitUntilStopped()
            await #expect(throws: (any Error).self) { try await http.execute(request, timeout: .seconds(5)) }
        } catch {
            Issue.record(error)
            await emulator.stop()
        }
        try await http.shutdown()
    }
}
