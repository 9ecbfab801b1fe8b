import AuthEmulator
import Foundation
import SessionKit
import SessionKitTesting
import Testing

/// `sessionctl token --audience A [--scope S]`: tokens for several APIs from one sign-in, as processes.
@Suite("sessionctl token --audience: several APIs, one sign-in")
struct AudienceCLITests {
    static let demo = AuthEmulator.API.demoIdentifier
    static let payments = AuthEmulator.API.paymentsIdentifier

    static func audiences(_ token: String) throws -> [String] {
        try JWT(decoding: token).audience
    }

    @Test("each API's token; then 8 processes on two expired APIs at once renew once per API")
    func twoAudiencesAcrossProcesses() async throws {
        try await LiveEmulator.with(LiveEmulator.configuration { $0.lifetimes.accessToken = 2 }) { emulator in
            let cli = try CLI.make(for: emulator)
            defer { cli.cleanUp() }
            try await cli.signIn()
            let demo = try await cli.run(["token", "--audience", Self.demo, "--min-ttl", "0"])
            #expect(demo.status == 0, "\(demo.stderr)")
            #expect(try Self.audiences(demo.stdout).contains(Self.demo))
            let payments = try await cli.run([
                "token", "--audience", Self.payments, "--scope", "read:payments", "--json",
            ])
            #expect(payments.status == 0, "\(payments.stderr)")
            let token = try #require(try JSONValue(parsing: Data(payments.stdout.utf8))["token"]?.stringValue)
            #expect(try Self.audiences(token) == [Self.payments], "no openid asked, so no userinfo audience")
            #expect(try JWT(decoding: token).scopes == ["read:payments"])

            try await Task.sleep(for: .milliseconds(2100))
            try await emulator.controls.resetRequestCounts()
            let started = try (0..<8).map { index in
                try cli.start([
                    "token", "--audience", index.isMultiple(of: 2) ? Self.demo : Self.payments, "--min-ttl", "0",
                ])
            }
            var tokens: [String: Set<String>] = [:]
            for (index, process) in started.enumerated() {
                let result = try await process.finish()
                #expect(result.status == 0, "\(result.stderr)")
                tokens[index.isMultiple(of: 2) ? Self.demo : Self.payments, default: []].insert(result.stdout)
            }
            #expect(tokens.mapValues(\.count) == [Self.demo: 1, Self.payments: 1], "one token per API")
            #expect(tokens[Self.demo]?.contains(demo.stdout) == false, "renewed")
            #expect(try await emulator.controls.requestCounts()[.refreshToken] == 2)
            // The session's own token renews with the refresh token the last API renewal rotated.
            let own = try await cli.run(["token", "--min-ttl", "0"])
            #expect(own.status == 0, "\(own.stderr)")
            #expect(try await emulator.controls.requestCounts()[.refreshToken] == 3)
        }
    }

    @Test("refusals: an API the client may not use exits 2 and keeps the session; bad combinations are usage errors")
    func refusals() async throws {
        try await LiveEmulator.with { emulator in
            let cli = try CLI.make(for: emulator)
            defer { cli.cleanUp() }
            try await cli.signIn()
            let refused = try await cli.run(["token", "--audience", "https://unknown.example/"])
            #expect(refused.status != 0 && refused.stdout.isEmpty)
            #expect(refused.stderr.contains("access_denied"), "\(refused.stderr)")
            #expect(try await cli.run(["token"]).status == 0, "the session is kept")
            let scopeAlone = try await cli.run(["token", "--scope", "read:data"])
            #expect(scopeAlone.status == 4, "\(scopeAlone.stderr)")
            #expect(scopeAlone.stderr.contains("--audience"))
            #expect(try await cli.run(["token", "--audience", Self.demo, "--id-token"]).status == 64)
        }
    }
}
