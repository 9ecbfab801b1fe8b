import AuthEmulator
import Foundation
import SecureStore
import SessionKit

/// The demo's steps. Each returns what it showed, or throws when the library did not do what it should.
struct DemoScript {
    let emulator: AuthEmulator
    let folder: URL
    let stepCount = 12

    private struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private func check(_ condition: Bool, _ message: @autoclosure () -> String) throws {
        if !condition { throw Failure(description: message()) }
    }

    private func makeStore() throws -> EncryptedFileStore {
        try EncryptedFileStore(
            service: "sessionctl-demo",
            configuration: .init(
                folder: folder.path, keySource: .keyFile(atPath: folder.appendingPathComponent("demo.key").path))
        )
    }

    private func makeSession() throws -> (ProviderClient, SessionManager) {
        let configuration = try ProviderConfiguration(
            issuer: emulator.issuer,
            clientID: AuthEmulator.Client.nativeID,
            audience: emulator.issuer.absoluteString + "api/v2/",
            scope: ProviderConfiguration.defaultScope + " read:current_user update:current_user_metadata"
        )
        let provider = ProviderClient(configuration: configuration)
        return (provider, SessionManager(provider: provider, store: try makeStore(), account: "demo"))
    }

    /// Runs every step, printing each; `true` when all passed.
    func run() async -> Bool {
        var number = 0
        func step(_ title: String, _ body: () async throws -> String) async -> Bool {
            number += 1
            do {
                let detail = try await body()
                Output.out("\(Output.good("✔")) \(String(format: "%2d", number)). \(title): \(detail)")
                return true
            } catch {
                Output.out("✘ \(String(format: "%2d", number)). \(title): \(error)")
                return false
            }
        }
        do {
            let (provider, session) = try makeSession()
            return try await story(provider: provider, session: session, step: step)
        } catch {
            Output.out("✘ setup: \(error)")
            return false
        }
    }

    private func story(
        provider: ProviderClient,
        session: SessionManager,
        step: (String, () async throws -> String) async -> Bool
    ) async throws -> Bool {
        var signedIn: Credentials?
        var relaunched: SessionManager?
        var renewed: Credentials?
        var subject = ""
        let steps: [(String, () async throws -> String)] = [
            (
                "Sign in (password grant, alice@example.com)",
                {
                    let credentials = try await provider.signIn(
                        username: AuthEmulator.User.aliceEmail, password: Secret(AuthEmulator.User.alicePassword)
                    )
                    try check(credentials.canRenew, "no refresh token was issued")
                    subject = credentials.idTokenClaims?.subject ?? ""
                    signedIn = credentials
                    return "ID token verified for \(subject), refresh token issued, \(credentials)"
                }
            ),
            (
                "Store the session (encrypted file store)",
                {
                    try await session.store(try signedIn.unwrap())
                    let attributes = try FileManager.default.attributesOfItem(atPath: folder.path)
                    let mode = (attributes[.posixPermissions] as? Int).map { String($0, radix: 8) } ?? "?"
                    return "stored under \(folder.path) (folder mode \(mode))"
                }
            ),
            (
                "Relaunch: a fresh manager restores the session",
                {
                    let (_, fresh) = try makeSession()
                    relaunched = fresh
                    let restored = try await fresh.storedCredentials()
                    try check(restored == signedIn, "the restored credentials differ from the stored ones")
                    return "session found, credentials identical"
                }
            ),
            (
                "Check validity locally (the access token's exp)",
                {
                    let restored = try await relaunched.unwrap().storedCredentials().unwrap()
                    let jwt = try JWT(decoding: restored.accessToken.unsafeRawValue)
                    try check(!jwt.isExpired(), "the fresh access token is already expired")
                    return "valid until \(jwt.expiresAt?.formatted(.iso8601) ?? "?")"
                }
            ),
            (
                "Check validity remotely (userinfo)",
                {
                    let profile = try await relaunched.unwrap().userInfo()
                    try check(profile.subject == subject, "userinfo names another user")
                    return "the provider accepts the token; profile cached"
                }
            ),
            (
                "Wait for the short-lived access token to expire",
                {
                    let expiry = try await relaunched.unwrap().storedCredentials().unwrap().expiresAt ?? Date()
                    try await Task.sleep(for: .milliseconds(Int(max(expiry.timeIntervalSinceNow, 0) * 1000) + 300))
                    try check(try await !relaunched.unwrap().hasValidCredentials(), "the token did not expire")
                    return "expired; a refresh token is stored, so the session is renewable"
                }
            ),
            (
                "Renew silently with refresh-token rotation",
                {
                    try await emulator.controls.resetRequestCounts()
                    let previous = try await relaunched.unwrap().storedCredentials().unwrap()
                    let fresh = try await relaunched.unwrap().credentials(minTTL: 1)
                    let requests = try await emulator.controls.requestCounts()[.token]
                    try check(fresh.accessToken != previous.accessToken, "the access token did not change")
                    try check(fresh.refreshToken != previous.refreshToken, "the refresh token was not rotated")
                    try check(requests == 1, "expected one token request, saw \(requests)")
                    renewed = fresh
                    return "new access token, rotated refresh token, one token request"
                }
            ),
            (
                "Renew with a still-valid token (RFC 8693 token exchange)",
                {
                    let exchanged = try await provider.exchange(
                        subjectToken: try renewed.unwrap().accessToken, subjectTokenType: .accessToken
                    )
                    try check(exchanged.accessToken != renewed?.accessToken, "the exchange returned the same token")
                    return "exchanged for a new access token (\(exchanged.issuedTokenType ?? "access token"))"
                }
            ),
            (
                "Show the profile",
                {
                    let profile = try await relaunched.unwrap().userInfo()
                    return "\(profile.name ?? "?") <\(profile.email ?? "?")>"
                }
            ),
            (
                "Patch user_metadata and read it back (Management API)",
                {
                    let management = ManagementClient(session: try relaunched.unwrap())
                    _ = try await management.patchUserMetadata(id: subject, ["country": "Canada", "theme": "dark"])
                    let user = try await management.user(id: subject, fields: ["user_metadata"])
                    try check(user["user_metadata"]?["country"] == "Canada", "the patched metadata did not read back")
                    return "user_metadata.country = Canada"
                }
            ),
            (
                "Log out: revoke at the provider and clear",
                {
                    let result = try await relaunched.unwrap().logout()
                    try check(result.revoked, "the refresh token was not revoked")
                    try check(try await !relaunched.unwrap().hasSession(), "the session is still stored")
                    return "revoked and cleared"
                }
            ),
            (
                "The old refresh token is refused",
                {
                    do {
                        _ = try await provider.renew(try renewed.unwrap())
                    } catch let error as SessionKitError where error.oauthError == "invalid_grant" {
                        return "the provider answered invalid_grant"
                    }
                    throw Failure(description: "the revoked refresh token still renewed")
                }
            ),
        ]
        for (title, body) in steps where !(await step(title, body)) {
            return false
        }
        return true
    }
}

extension Optional {
    /// The value, or an error saying an earlier step did not produce it.
    fileprivate func unwrap() throws -> Wrapped {
        guard let value = self else {
            throw CocoaError(.featureUnsupported, userInfo: ["reason": "an earlier step failed"])
        }
        return value
    }
}
