import AuthEmulator
import Foundation
import SecureStore
import SessionKit
import SessionKitTesting
import Testing

/// Native to Web SSO (issue 47): the session's refresh token traded for a session transfer token, which signs the
/// user in to a web app once, with the renewal rules every grant follows.
@Suite("Native to Web SSO: session transfer tokens")
struct SessionTransferTests {
    /// A signed-in session of alice for `clientID` in a memory store.
    static func session(
        _ emulator: AuthEmulator, clientID: String = AuthEmulator.Client.nativeID, secret: String? = nil
    )
        async throws -> (ProviderClient, SessionManager)
    {
        let provider = ProviderClient(
            configuration: try emulator.providerConfiguration(clientID: clientID, clientSecret: secret))
        let session = SessionManager(
            provider: provider, store: SynchronousStoreAdapter(MemoryStore(service: "tests.transfer.\(UUID())")))
        try await session.store(
            try await provider.signIn(
                username: AuthEmulator.User.aliceEmail, password: Secret(AuthEmulator.User.alicePassword)))
        return (provider, session)
    }

    /// `/authorize` for the web app (the confidential client) with `token`, redirects not followed: the status and
    /// where it sends the browser.
    static func authorize(_ emulator: AuthEmulator, _ token: SessionTransferToken, clientID: String)
        async throws -> (status: Int, location: String?)
    {
        var components = URLComponents(
            url: emulator.issuer.appendingPathComponent("authorize"), resolvingAgainstBaseURL: false)!
        components.queryItems = [
            .init(name: "client_id", value: clientID), .init(name: "response_type", value: "code"),
            .init(name: "redirect_uri", value: "http://127.0.0.1/callback"), .init(name: "scope", value: "openid"),
            .init(name: "state", value: "s1"), .init(name: "code_challenge", value: String(repeating: "a", count: 43)),
            .init(name: "code_challenge_method", value: "S256"),
        ]
        let url = token.appended(to: components.url!)
        let response = try await ProviderClient.defaultTransport.send(
            HTTPRequest(method: "GET", url: url, headers: []), timeout: .seconds(5))
        return (response.status, response.headers.first { $0.name.lowercased() == "location" }?.value)
    }

    @Test("the token signs alice in to the web app once; the rotated refresh token is kept and renews")
    func signsInOnce() async throws {
        try await LiveEmulator.with { emulator in
            let (_, session) = try await Self.session(emulator)
            let before = try #require(try await session.storedCredentials()?.refreshToken)
            let transfer = try await session.sessionTransferToken()
            #expect(!transfer.description.contains(transfer.token.unsafeRawValue), "the description hides the token")
            #expect(transfer.expiresAt > Date() && transfer.expiresAt <= Date().addingTimeInterval(61))
            let after = try #require(try await session.storedCredentials()?.refreshToken)
            #expect(after != before, "the provider rotated the refresh token, and the new one is stored")
            // The old one is spent: a renewal with the stored one still works (reuse detection would end it).
            _ = try await session.renew()

            let first = try await Self.authorize(emulator, transfer, clientID: AuthEmulator.Client.confidentialID)
            #expect(first.status == 302)
            #expect(first.location?.hasPrefix("http://127.0.0.1/callback?code=") == true, "\(first)")
            let again = try await Self.authorize(emulator, transfer, clientID: AuthEmulator.Client.confidentialID)
            #expect(again.status == 200, "a used token gets the sign-in page, not a code")
        }
    }

    @Test("a client that does not accept them, an expired token: the sign-in page, no code")
    func refusedAtAuthorize() async throws {
        try await LiveEmulator.with { emulator in
            let (_, session) = try await Self.session(emulator)
            let forNative = try await Self.authorize(
                emulator, try await session.sessionTransferToken(), clientID: AuthEmulator.Client.nativeID)
            #expect(forNative.status == 200)
            let late = try await session.sessionTransferToken()
            try await emulator.controls.advanceClock(by: 61)
            #expect(
                try await Self.authorize(emulator, late, clientID: AuthEmulator.Client.confidentialID).status == 200)
        }
    }

    @Test("a client that may not create them: providerError, the session kept; a revoked refresh token ends it")
    func refusedAtExchange() async throws {
        try await LiveEmulator.with { emulator in
            let (_, backend) = try await Self.session(
                emulator, clientID: AuthEmulator.Client.confidentialID, secret: AuthEmulator.Client.confidentialSecret)
            do throws(SessionKitError) {
                _ = try await backend.sessionTransferToken()
                Issue.record("the confidential client got a session transfer token")
            } catch {
                #expect(error.code == .providerError)
                #expect(error.oauthError == "unauthorized_client")
            }
            #expect(try await backend.storedCredentials() != nil, "the session is kept")

            let (provider, session) = try await Self.session(emulator)
            let stored = try #require(try await session.storedCredentials()?.refreshToken)
            try await provider.revoke(stored)
            do throws(SessionKitError) {
                _ = try await session.sessionTransferToken()
                Issue.record("a revoked refresh token was traded")
            } catch {
                #expect(error.code == .signInRequired)
            }
            #expect(try await session.storedCredentials() == nil, "the provider's definitive answer ends the session")
        }
    }

    @Test("concurrent calls each get their own token, and renewals around them never reuse a refresh token")
    func concurrent() async throws {
        try await LiveEmulator.with { emulator in
            let (_, session) = try await Self.session(emulator)
            let tokens = try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<6 {
                    group.addTask {
                        if index.isMultiple(of: 2) { _ = try await session.renew() }
                        return try await session.sessionTransferToken().token.unsafeRawValue
                    }
                }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
            #expect(Set(tokens).count == 6)
            _ = try await session.renew()
        }
    }
}
