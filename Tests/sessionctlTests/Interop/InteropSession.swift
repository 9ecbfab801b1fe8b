import Foundation
import SecureStore
import SessionKit
import SessionKitTesting
import Testing

/// The library side of a scenario: a `SessionManager` for the provider's password client, over an encrypted
/// file store in a fresh folder that a "relaunched" manager can open again.
struct InteropSession {
    let folder: URL
    let client: ProviderClient
    let manager: SessionManager

    init(_ provider: any InteropProvider) throws {
        folder = try TemporaryFolder(prefix: "sessionkit-interop").url
        client = ProviderClient(configuration: try provider.configuration(for: .password))
        manager = SessionManager(provider: client, store: try Self.store(in: folder))
    }

    private static func store(in folder: URL) throws -> EncryptedFileStore {
        try EncryptedFileStore(
            service: "sessionkit-interop",
            configuration: .init(folder: folder.path, keySource: .keyFile(atPath: folder.path + "/store.key"))
        )
    }

    /// A new manager over the same store, as the app has after a relaunch.
    func relaunched() throws -> SessionManager {
        SessionManager(provider: ProviderClient(configuration: client.configuration), store: try Self.store(in: folder))
    }

    /// Signs the fixture user in with the password grant and stores the session, as the seeds do after login.
    @discardableResult
    func signIn(_ provider: any InteropProvider) async throws -> Credentials {
        let credentials = try await client.signIn(username: provider.username, password: Secret(provider.password))
        try await manager.store(credentials)
        return credentials
    }

    func cleanUp() {
        try? FileManager.default.removeItem(at: folder)
    }
}

/// Waits, in real time, until `credentials`' access token has expired at the provider too.
func waitUntilExpired(_ credentials: Credentials) async throws {
    let expiresAt = try #require(credentials.expiresAt, "the provider sent no expires_in")
    let wait = expiresAt.timeIntervalSinceNow + 1
    guard wait < 60 else {
        throw TestFailure(
            "access tokens live \(Int(wait)) s; start django-oauth-toolkit with INTEROP_ACCESS_TOKEN_SECONDS=15")
    }
    if wait > 0 { try await Task.sleep(for: .seconds(wait)) }
}

/// Whether `error` is the provider's refusal of an unusable access token (HTTP 401).
func isUnauthorized(_ error: any Error) -> Bool {
    (error as? SessionKitError)?.httpStatus == 401
}

/// Whether `error` is the provider's `invalid_grant`.
func isInvalidGrant(_ error: any Error) -> Bool {
    (error as? SessionKitError)?.oauthError == "invalid_grant"
}

/// Whether `error` says the session is over and the user must sign in again.
func isSignInRequired(_ error: any Error) -> Bool {
    (error as? SessionKitError)?.code == .signInRequired
}
