import AuthEmulator
import Foundation
import SessionKit
import SessionKitTesting
import Testing

@Suite("sessionctl as a process against a live emulator")
struct CommandTests {
    @Test("status, login, token, whoami, refresh, logout: output, JSON shapes and exit codes")
    func lifecycle() async throws {
        try await LiveEmulator.with { emulator in
            let cli = try CLI.make(for: emulator)
            defer { cli.cleanUp() }

            let before = try await cli.run(["status"])
            #expect(before.status == 1)
            #expect(before.stdout.contains("Not signed in"))
            let beforeJSON = try SessionKit.JSONValue(
                parsing: Data(try await cli.run(["status", "--json"]).stdout.utf8))
            #expect(beforeJSON["signed_in"] == false)

            let noToken = try await cli.run(["token"])
            #expect(noToken.status == 1)
            #expect(noToken.stdout.isEmpty)
            #expect(noToken.stderr.contains("sign in"))

            try await cli.signIn()
            let status = try await cli.run(["status", "--json"])
            #expect(status.status == 0)
            let report = try JSONValue(parsing: Data(status.stdout.utf8))
            #expect(report["signed_in"] == true)
            #expect(report["valid"] == true)
            #expect(report["renewable"] == true)
            #expect(report["subject"] == .string(AuthEmulator.User.aliceID))
            #expect(report["store"]?["location"]?.stringValue?.hasSuffix("state/sessionctl") == true)
            for key in ["expires_at", "issuer", "client_id", "profile", "email"] {
                #expect(report[key] != nil, "status --json lacks \(key)")
            }

            let token = try await cli.run(["token"])
            #expect(token.status == 0)
            let accessToken = token.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(try JWT(decoding: accessToken).subject == AuthEmulator.User.aliceID)

            let exec = try SessionKit.JSONValue(
                parsing: Data(try await cli.run(["token", "--output", "exec-credential"]).stdout.utf8))
            #expect(exec["apiVersion"] == "client.authentication.k8s.io/v1")
            #expect(exec["kind"] == "ExecCredential")
            #expect(exec["status"]?["token"] == .string(accessToken))
            let timestamp = try #require(exec["status"]?["expirationTimestamp"]?.stringValue)
            #expect(try Date(timestamp, strategy: .iso8601) > Date())

            let json = try JSONValue(parsing: Data(try await cli.run(["token", "--json"]).stdout.utf8))
            #expect(json["token"] == .string(accessToken))
            let idToken = try await cli.run(["token", "--id-token"])
            #expect(
                try JWT(decoding: idToken.stdout.trimmingCharacters(in: .whitespacesAndNewlines)).audience == [
                    AuthEmulator.Client.nativeID
                ])

            let whoami = try await cli.run(["whoami", "--json"])
            #expect(
                try JSONValue(parsing: Data(whoami.stdout.utf8))["email"]
                    == .string(AuthEmulator.User.aliceEmail))
            #expect(try await cli.run(["whoami"]).stdout.contains(AuthEmulator.User.aliceEmail))

            let refresh = try await cli.run(["refresh"])
            #expect(refresh.status == 0)
            let renewed = try await cli.run(["token"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(renewed != accessToken)

            let logout = try await cli.run(["logout"])
            #expect(logout.status == 0)
            #expect(logout.stdout.contains("revoked"))
            #expect(try await cli.run(["status"]).status == 1)
            #expect(try await cli.run(["token"]).status == 1)
        }
    }

    @Test("metadata get, set and unset through the Management API")
    func metadata() async throws {
        try await LiveEmulator.with { emulator in
            let cli = try CLI.make(
                for: emulator,
                extra: [
                    "SESSIONCTL_AUDIENCE": emulator.managementAudience,
                    "SESSIONCTL_SCOPE": ProviderConfiguration.defaultScope + " " + AuthEmulator.managementScope,
                ]
            )
            defer { cli.cleanUp() }
            try await cli.signIn()
            let set = try await cli.run(["metadata", "set", "country=Canada", "visits=3", #"prefs={"theme":"dark"}"#])
            #expect(set.status == 0, "\(set.stderr)")
            #expect(try await cli.run(["metadata", "get", "country"]).stdout == "Canada\n")
            let prefs = try SessionKit.JSONValue(
                parsing: Data(try await cli.run(["metadata", "get", "prefs"]).stdout.utf8))
            #expect(prefs["theme"] == "dark")
            let all = try JSONValue(parsing: Data(try await cli.run(["metadata", "get"]).stdout.utf8))
            #expect(all["visits"] == 3)
            #expect(try await cli.run(["metadata", "unset", "country"]).status == 0)
            let missing = try await cli.run(["metadata", "get", "country"])
            #expect(missing.status != 0)
            #expect(missing.stderr.contains("no key 'country'"))
        }
    }

    @Test("metadata with a session for another audience: a configuration error (exit 4) naming the audience to set")
    func metadataWithoutTheAudience() async throws {
        try await LiveEmulator.with { emulator in
            let cli = try CLI.make(for: emulator)
            defer { cli.cleanUp() }
            try await cli.signIn()
            let refused = try await cli.run(["metadata", "get"])
            #expect(refused.status == 4, "\(refused.stderr)")
            #expect(refused.stderr.contains("--audience \(emulator.managementAudience) "), "\(refused.stderr)")
            #expect(refused.stderr.contains("update:current_user_metadata"), "\(refused.stderr)")
            #expect(try await cli.run(["status"]).status == 0, "the session is kept")
        }
    }

    @Test("configure saves a profile; bad issuers and configs get their own messages and exit codes")
    func configuration() async throws {
        try await LiveEmulator.with { emulator in
            let cli = try CLI.make()
            defer { cli.cleanUp() }
            let unconfigured = try await cli.run(["status"])
            #expect(unconfigured.status == 4)
            #expect(unconfigured.stderr.contains("sessionctl configure"))

            let remoteHTTP = try await cli.run(["configure", "--issuer", "http://example.com/", "--client-id", "x"])
            #expect(remoteHTTP.status == 4)
            #expect(remoteHTTP.stderr.contains("https"))
            let notURL = try await cli.run(["configure", "--issuer", "not a url", "--client-id", "x"])
            #expect(notURL.status == 4)

            let saved = try await cli.run([
                "configure", "--issuer", emulator.issuer.absoluteString, "--client-id", AuthEmulator.Client.nativeID,
            ])
            #expect(saved.status == 0, "\(saved.stderr)")
            let file = cli.home.appendingPathComponent("config/sessionctl/config.json")
            let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
            #expect(attributes[.posixPermissions] as? Int == 0o600)
            try await cli.signIn()
            #expect(try await cli.run(["status"]).status == 0)

            // Flags win over the saved profile: another profile name has no session.
            #expect(try await cli.run(["status", "--profile", "work"]).status == 4)

            try Data("{not json".utf8).write(to: file)
            let broken = try await cli.run(["status"])
            #expect(broken.status == 4)
            #expect(broken.stderr.contains("config file"))

            // A config folder that cannot be made: the message names the file and the system's reason.
            try FileManager.default.removeItem(at: cli.home.appendingPathComponent("config"))
            try Data().write(to: cli.home.appendingPathComponent("config"))
            let unwritable = try await cli.run([
                "configure", "--issuer", emulator.issuer.absoluteString, "--client-id", AuthEmulator.Client.nativeID,
            ])
            #expect(unwritable.status == 4)
            #expect(
                unwritable.stderr.contains("cannot write the config file")
                    && unwritable.stderr.contains("(Not a directory)"),
                "\(unwritable.stderr)")
        }
    }

    @Test("an unreachable provider and a damaged store get their own exit codes, and nothing is lost")
    func errorPaths() async throws {
        try await LiveEmulator.with(LiveEmulator.configuration { $0.lifetimes.accessToken = 1 }) { emulator in
            let cli = try CLI.make(for: emulator)
            defer { cli.cleanUp() }
            var offline = cli
            offline.environment["SESSIONCTL_ISSUER"] = "http://127.0.0.1:9/"
            let unreachable = try await offline.run(
                ["login", "--password-stdin", "--username", "a"], input: "b\n"
            )
            #expect(unreachable.status == 2)
            #expect(
                unreachable.stderr.contains("could not reach 127.0.0.1 (Connection refused)"), "\(unreachable.stderr)")

            try await cli.signIn()
            try await Task.sleep(for: .milliseconds(1100))
            try await emulator.controls.inject(.status(503), into: .token)
            let failing = try await cli.run(["token"])
            #expect(failing.status == 2)
            #expect(failing.stderr.contains("session is kept"))
            try await emulator.controls.clearFaults()
            #expect(try await cli.run(["token"]).status == 0, "the session survived the 503")

            try cli.damageStore()
            let damaged = try await cli.run(["status"])
            #expect(damaged.status == 3)
            #expect(damaged.stderr.contains("damaged"))
        }
    }

    @Test("a damaged store is cleared by logout and replaced by login, each saying so (issue 17, item 4)")
    func damagedStoreWayOut() async throws {
        try await LiveEmulator.with { emulator in
            let cli = try CLI.make(for: emulator)
            defer { cli.cleanUp() }
            try await cli.signIn()
            try cli.damageStore()
            let logout = try await cli.run(["logout"])
            #expect(logout.status == 0, "\(logout.stderr)")
            #expect(logout.stderr.contains("deleted without revoking"))
            #expect(try await cli.run(["status"]).status == 1, "signed out, no longer damaged")

            try await cli.signIn()
            try cli.damageStore()
            let login = try await cli.run(
                ["login", "--password-stdin", "--username", AuthEmulator.User.aliceEmail],
                input: AuthEmulator.User.alicePassword + "\n")
            #expect(login.status == 0, "\(login.stderr)")
            #expect(login.stderr.contains("replaced by this sign-in"))
            #expect(try await cli.run(["token"]).status == 0)
        }
    }
}
