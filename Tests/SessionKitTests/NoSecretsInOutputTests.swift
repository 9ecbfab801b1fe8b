import AuthEmulator
import Foundation
import Logging
import SessionKit
import SessionKitTesting
import Testing

@Suite("No secret in any log line, error or description")
struct NoSecretsInOutputTests {
    @Test("a whole session at trace level logs no token, password or code")
    func logsAreClean() async throws {
        try await LiveEmulator.with { emulator in
            let collector = LogCapture()
            let logger = collector.logger
            let live = try LiveSession.make(emulator)
            defer { live.cleanUp() }
            let provider = ProviderClient(configuration: live.configuration, clock: live.time.clock, logger: logger)
            let session = SessionManager(
                provider: provider, store: try LiveSession.makeStore(live.folder), clock: live.time.clock,
                logger: logger
            )
            var secrets = [AuthEmulator.User.alicePassword]
            let credentials = try await provider.signIn(
                username: AuthEmulator.User.aliceEmail, password: Secret(AuthEmulator.User.alicePassword)
            )
            try await session.store(credentials)
            live.expire(credentials)
            let renewed = try await session.credentials()
            _ = try await session.userInfo()
            var errors: [String] = []
            do { _ = try await provider.renew(credentials) } catch { errors.append("\(error)") }
            try await session.logout()
            do { _ = try await session.credentials() } catch { errors.append("\(error)") }
            for value in [credentials, renewed] {
                secrets.append(value.accessToken.unsafeRawValue)
                if let token = value.refreshToken { secrets.append(token.unsafeRawValue) }
                if let token = value.idToken { secrets.append(token.unsafeRawValue) }
            }
            let lines = collector.lines
            #expect(lines.count > 8, "the logger saw the requests")
            let output = lines + errors + [credentials.description, renewed.debugDescription]
            for text in output {
                for secret in secrets where text.contains(secret) {
                    Issue.record("a secret (\(secret.prefix(6))…) appeared in: \(text.prefix(80))")
                }
            }
        }
    }
}
