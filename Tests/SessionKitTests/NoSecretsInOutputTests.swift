import AuthEmulator
import Foundation
import Logging
import SessionKit
import SessionKitTestSupport
import SessionKitTesting
import Testing

@Suite("No secret in any log line, error or description")
struct NoSecretsInOutputTests {
    /// A short, unknown member value, as Auth0's `mfa_token` is.
    static let mfaToken = "mfa-Fe26.2**0bd3"

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

    /// Issue 17, item 7: unknown response members are logged by name only. A transport in front of the real
    /// emulator adds an `mfa_token` (as Auth0 sends with `mfa_required`) to the token answer.
    @Test("unknown response members are logged by name only; personal data in userinfo too")
    func unknownMembers() async throws {
        try await LiveEmulator.with { emulator in
            let collector = LogCapture()
            let provider = ProviderClient(
                configuration: try emulator.providerConfiguration(),
                transport: RewritingTransport(answersTo: "/token") { $0["mfa_token"] = .string(Self.mfaToken) },
                logger: collector.logger)
            let credentials = try await provider.signIn(
                username: AuthEmulator.User.aliceEmail, password: Secret(AuthEmulator.User.alicePassword))
            _ = try await provider.userInfo(accessToken: credentials.accessToken)
            let log = collector.lines.joined(separator: "\n")
            #expect(log.contains("mfa_token"), "the member's name is logged")
            #expect(!log.contains(Self.mfaToken), "its value is not")
            #expect(!log.contains(AuthEmulator.User.aliceEmail), "nor is the user's email")
            #expect(log.contains("token_type=Bearer"), "protocol fields keep their values")
        }
    }
}
