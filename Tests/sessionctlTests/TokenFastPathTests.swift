import AuthEmulator
import Foundation
import SessionKit
import SessionKitTesting
import Testing

/// `sessionctl token` answers a valid session synchronously, before ArgumentParser's asynchronous path;
/// these tests check that the answer is the same as before and that every other case still goes the long way.
@Suite("sessionctl token: the valid-token path")
struct TokenFastPathTests {
    @Test("a valid session prints every format with no request, also when --min-ttl asks for more than it gives")
    func formatsAndFallback() async throws {
        try await LiveEmulator.with { emulator in
            let cli = try CLI.make(for: emulator)
            defer { cli.cleanUp() }
            try await cli.signIn()
            try await emulator.controls.resetRequestCounts()

            let plain = try await cli.run(["token"])
            #expect(plain.status == 0 && plain.stderr.isEmpty)
            let accessToken = plain.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(accessToken.split(separator: ".").count == 3)
            let json = try JSONValue(parsing: Data(try await cli.run(["token", "--json"]).stdout.utf8))
            #expect(json["token"] == .string(accessToken))
            #expect(json["token_type"] == "Bearer")
            #expect(json["expires_at"]?.stringValue != nil)
            let exec = try JSONValue(
                parsing: Data(try await cli.run(["token", "--output", "exec-credential"]).stdout.utf8))
            #expect(exec["status"]?["token"] == .string(accessToken))
            let idToken = try await cli.run(["token", "--id-token", "--json"])
            let idJSON = try JSONValue(parsing: Data(idToken.stdout.utf8))
            #expect(idJSON["token_type"] == "id_token")
            #expect(idJSON["token"] != .string(accessToken))
            #expect(try await emulator.controls.requestCounts().byEndpoint.isEmpty, "a valid token needs no request")

            // Two days from one day's token: no renewal could give more than this fresh one, so it is served.
            let fresh = try await cli.run(["token", "--min-ttl", "172800"])
            #expect(fresh.status == 0 && fresh.stderr.isEmpty)
            #expect(fresh.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == accessToken)
            #expect(try await emulator.controls.requestCounts().byEndpoint.isEmpty)
            // RenewalSafetyCLITests covers the long path: a used token that --min-ttl finds too short is renewed.
        }
    }

    @Test("no session and a damaged store are reported by the usual path, with the usual exit codes")
    func errorsGoTheLongWay() async throws {
        try await LiveEmulator.with { emulator in
            let cli = try CLI.make(for: emulator)
            defer { cli.cleanUp() }
            let signedOut = try await cli.run(["token"])
            #expect(signedOut.status == 1)
            #expect(signedOut.stderr.contains("sign in"))

            try await cli.signIn()
            try cli.damageStore()
            let damaged = try await cli.run(["token"])
            #expect(damaged.status == 3)
            #expect(damaged.stdout.isEmpty)
            #expect(damaged.stderr.contains("damaged"))
        }
    }

    @Test("bad usage is still ArgumentParser's error")
    func badUsage() async throws {
        let cli = try CLI.make()
        defer { cli.cleanUp() }
        let result = try await cli.run(["token", "--output", "yaml"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("yaml"))
    }
}
