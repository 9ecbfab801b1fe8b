import AuthEmulator
import Foundation
import SessionKit
import SessionKitTesting
import Testing

/// `sessionctl configure --dpop` / `SESSIONCTL_DPOP=1`, and `token --dpop-proof METHOD URL`, as processes.
@Suite("sessionctl with DPoP-bound tokens")
struct DPoPCLITests {
    @Test("configure --dpop: sign-in, renewal and logout with the profile's key; --dpop-proof prints the two headers")
    func dpopProfile() async throws {
        try await LiveEmulator.with(LiveEmulator.configuration { $0.dpopNonceRequired = true }) { emulator in
            let cli = try CLI.make(for: emulator)
            defer { cli.cleanUp() }
            let configured = try await cli.run([
                "configure", "--dpop", "--issuer", emulator.issuer.absoluteString, "--client-id",
                AuthEmulator.Client.nativeID,
            ])
            #expect(configured.status == 0, "\(configured.stderr)")
            try await cli.signIn()
            let token = try await cli.run(["token"])
            #expect(token.status == 0, "\(token.stderr)")
            let accessToken = token.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let claims = try JWT(decoding: accessToken)
            let jkt = try #require(claims.claims["cnf"]?["jkt"]?.stringValue)

            let userinfo = emulator.issuer.appendingPathComponent("userinfo")
            let headers = try await cli.run(["token", "--dpop-proof", "GET", userinfo.absoluteString])
            #expect(headers.status == 0, "\(headers.stderr)")
            let lines = headers.stdout.split(separator: "\n").map(String.init)
            #expect(lines.count == 2 && lines[0] == "Authorization: DPoP \(accessToken)")
            let proof = try #require(lines.last?.split(separator: " ", maxSplits: 1).last.map(String.init))
            #expect(lines[1].hasPrefix("DPoP: "))
            // The two lines are what a script sends (curl -H ...). This server demands a nonce: the first answer is
            // 401 use_dpop_nonce with one, and the script asks again with --dpop-nonce.
            func send(_ proof: String) async throws -> HTTPResponse {
                try await ProviderClient.defaultTransport.send(
                    HTTPRequest(
                        method: "GET", url: userinfo,
                        headers: [("Authorization", "DPoP \(accessToken)"), ("DPoP", proof)]),
                    timeout: .seconds(10))
            }
            let challenged = try await send(proof)
            #expect(challenged.status == 401)
            #expect(challenged.header("WWW-Authenticate")?.contains("use_dpop_nonce") == true)
            let nonce = try #require(challenged.header("DPoP-Nonce"))
            let again = try await cli.run([
                "token", "--dpop-proof", "GET", userinfo.absoluteString, "--dpop-nonce", nonce,
            ])
            let retried = try #require(
                again.stdout.split(separator: "\n").last?.split(separator: " ").last,
                "status \(again.status): \(again.stderr)")
            let answer = try await send(String(retried))
            #expect(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")

            try await emulator.controls.resetRequestCounts()
            let refreshed = try await cli.run(["refresh"])
            #expect(refreshed.status == 0, "\(refreshed.stderr)")
            let renewed = try await cli.run(["token"])
            #expect(try JWT(decoding: renewed.stdout).claims["cnf"]?["jkt"]?.stringValue == jkt, "the same key")
            #expect(try await emulator.controls.requestCounts()[.refreshToken] >= 1)
            #expect(try await cli.run(["whoami"]).status == 0)
            #expect(try await cli.run(["logout"]).status == 0)
        }
    }

    @Test("SESSIONCTL_DPOP=1 binds the session too; without DPoP, --dpop-proof prints a Bearer header")
    func environmentAndBearer() async throws {
        try await LiveEmulator.with { emulator in
            let bound = try CLI.make(for: emulator, extra: ["SESSIONCTL_DPOP": "1"])
            defer { bound.cleanUp() }
            try await bound.signIn()
            let boundToken = try await bound.run(["token"]).stdout
            #expect(try JWT(decoding: boundToken).claims["cnf"]?["jkt"]?.stringValue != nil)
            let cli = try CLI.make(for: emulator)
            defer { cli.cleanUp() }
            try await cli.signIn()
            let token = try await cli.run(["token"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(try JWT(decoding: token).claims["cnf"] == nil)
            let headers = try await cli.run(["token", "--dpop-proof", "GET", "https://api.example.com/x"])
            #expect(headers.stdout == "Authorization: Bearer \(token)\n")
            #expect(try await cli.run(["token", "--dpop-proof", "GET", "not a url"]).status == 64)
            #expect(try await cli.run(["token", "--dpop-proof", "GET"]).status == 64)
        }
    }
}
