import AuthEmulator
import Foundation
import SessionKitTesting
import Testing

@testable import SessionKit

/// Confidential clients (issue 12, item 6): the secret goes by `client_secret_basic` or `client_secret_post`,
/// chosen from discovery or set, at the token, revocation and device-authorization endpoints; the emulator
/// refuses any method it was not configured to accept, as a provider that registered the client for one does.
@Suite("Confidential clients: client_secret_basic and client_secret_post")
struct ConfidentialClientTests {
    private static let secret = AuthEmulator.Client.confidentialSecret

    /// An emulator that accepts only `methods` (plus `none` for public clients).
    private static func accepting(_ methods: [String]) -> AuthEmulator.Configuration {
        LiveEmulator.configuration { $0.clientAuthenticationMethods = methods + ["none"] }
    }

    private static func provider(
        _ emulator: AuthEmulator, _ method: ClientAuthenticationMethod = .automatic, secret: String = secret,
        logger: LogCapture? = nil
    ) throws -> ProviderClient {
        var configuration = try emulator.providerConfiguration(
            clientID: AuthEmulator.Client.confidentialID, clientSecret: secret)
        configuration.clientAuthentication = method
        return ProviderClient(configuration: configuration, logger: logger?.logger)
    }

    @Test(
        "automatic: the method discovery lists is used for sign-in, renewal, device authorization and revocation",
        arguments: [["client_secret_basic"], ["client_secret_post"], ["client_secret_post", "client_secret_basic"]])
    func automatic(methods: [String]) async throws {
        try await LiveEmulator.with(Self.accepting(methods)) { emulator in
            let log = LogCapture()
            let provider = try Self.provider(emulator, logger: log)
            let expected: ClientAuthenticationMethod =
                methods.contains("client_secret_basic") ? .clientSecretBasic : .clientSecretPost
            let signedIn = try await provider.signIn(
                username: AuthEmulator.User.aliceEmail, password: Secret(AuthEmulator.User.alicePassword))
            let renewed = try await provider.renew(signedIn)
            #expect(renewed.accessToken != signedIn.accessToken)
            let device = try await provider.startDeviceAuthorization()
            #expect(!device.userCode.isEmpty)
            try await provider.revoke(try #require(renewed.refreshToken))
            await #expect(throws: SessionKitError.self) { _ = try await provider.renew(renewed) }

            // The secret never reaches a log line, in clear or in its Basic encoding.
            let basic = Data("\(AuthEmulator.Client.confidentialID):\(Self.secret)".utf8).base64EncodedString()
            let text = log.lines.joined(separator: "\n")
            #expect(!text.contains(Self.secret) && !text.contains(basic))
            #expect(text.contains(expected == .clientSecretBasic ? "Authorization: <redacted>" : "client_secret="))
        }
    }

    @Test("a set method is used as set, and the provider's refusal says the client was not authenticated")
    func explicitMethod() async throws {
        try await LiveEmulator.with(Self.accepting(["client_secret_basic"])) { emulator in
            let basic = try Self.provider(emulator, .clientSecretBasic)
            _ = try await basic.signIn(
                username: AuthEmulator.User.aliceEmail, password: Secret(AuthEmulator.User.alicePassword))
            let post = try Self.provider(emulator, .clientSecretPost)
            do {
                _ = try await post.signIn(
                    username: AuthEmulator.User.aliceEmail, password: Secret(AuthEmulator.User.alicePassword))
                Issue.record("client_secret_post was accepted by a provider that takes only client_secret_basic")
            } catch let error as SessionKitError {
                #expect(error.oauthError == "invalid_client" && !error.isRetryable)
            }
        }
    }

    @Test("a wrong secret is refused as invalid_client, and the error shows no secret")
    func wrongSecret() async throws {
        try await LiveEmulator.with(LiveEmulator.testConfiguration()) { emulator in
            let wrong = "wrong-secret-value-that-must-not-leak"
            for method in [ClientAuthenticationMethod.clientSecretBasic, .clientSecretPost] {
                let provider = try Self.provider(emulator, method, secret: wrong)
                do {
                    _ = try await provider.signIn(
                        username: AuthEmulator.User.aliceEmail, password: Secret(AuthEmulator.User.alicePassword))
                    Issue.record("a wrong secret was accepted")
                } catch let error as SessionKitError {
                    #expect(error.oauthError == "invalid_client")
                    #expect(!"\(error)".contains(wrong) && !String(reflecting: error).contains(wrong))
                }
            }
        }
    }

    @Test("a provider that lists no secret method: a configuration error before anything is sent")
    func noUsableMethod() async throws {
        try await LiveEmulator.with(Self.accepting([])) { emulator in
            let provider = try Self.provider(emulator)
            do {
                _ = try await provider.signIn(
                    username: AuthEmulator.User.aliceEmail, password: Secret(AuthEmulator.User.alicePassword))
                Issue.record("expected a configuration error")
            } catch let error as SessionKitError {
                #expect(error.code == .invalidConfiguration)
                #expect(error.message.contains("client_secret_basic or client_secret_post"))
            }
            #expect(try await emulator.controls.requestCounts()[.token] == 0)
        }
    }

    @Test("automatic resolution: basic when listed or when the list is absent, else post, else an error")
    func resolution() throws {
        #expect(try ClientAuthenticationMethod.automatic.resolved(supported: nil) == .clientSecretBasic)
        #expect(
            try ClientAuthenticationMethod.automatic.resolved(supported: ["client_secret_post", "client_secret_basic"])
                == .clientSecretBasic)
        #expect(
            try ClientAuthenticationMethod.automatic.resolved(supported: ["client_secret_post"]) == .clientSecretPost)
        #expect(
            try ClientAuthenticationMethod.clientSecretPost.resolved(supported: ["private_key_jwt"])
                == .clientSecretPost)
        #expect(throws: SessionKitError.self) {
            try ClientAuthenticationMethod.automatic.resolved(supported: ["private_key_jwt", "none"])
        }
    }
}
