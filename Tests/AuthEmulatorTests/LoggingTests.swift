import AuthEmulator
import Foundation
import Logging
import SessionKitTesting
import Testing

@Suite("Logging")
struct LoggingTests {
    @Test func secretsNeverReachTheLogs() async throws {
        let collector = LogCapture()
        let logger = collector.logger
        var configuration = AuthEmulator.Configuration.testing()
        configuration.autoSignInUser = AuthEmulator.User.aliceEmail
        let emulator = try await AuthEmulator.start(configuration: configuration, logger: logger)
        var secrets: [String] = [AuthEmulator.User.alicePassword, AuthEmulator.Client.confidentialSecret]
        try await Harness.with(emulator: emulator) { h in
            let pkce = Harness.pkce()
            let code = try #require(
                try await h.get(Harness.authorizePath(challenge: pkce.challenge)).redirectQuery["code"])
            let tokens = try await h.token([
                "grant_type": "authorization_code", "client_id": Harness.native, "code": code,
                "code_verifier": pkce.verifier, "redirect_uri": Harness.callback,
            ])
            let refreshToken = try #require(tokens["refresh_token"])
            _ = try await h.refresh(refreshToken)
            _ = try await h.refresh(refreshToken)  // reuse: logged as a detection, without the token
            _ = try await h.signIn()
            _ = try await h.token([
                "grant_type": "client_credentials", "client_id": AuthEmulator.Client.confidentialID,
                "client_secret": "wrong-secret-value",
            ])
            secrets += [code, pkce.verifier, refreshToken, try #require(tokens["access_token"]), "wrong-secret-value"]
        }
        let lines = collector.lines
        #expect(!lines.isEmpty, "debug logging is on, so requests are logged")
        for secret in secrets {
            #expect(!lines.contains { $0.contains(secret) })
        }
    }
}
