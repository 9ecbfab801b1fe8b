public import AuthEmulator
public import Foundation
public import SecureStore
public import SessionKit

/// A session wired to a live emulator, with a file store in a fresh temporary folder.
public struct LiveSession: Sendable {
    /// The emulator the session signs in with.
    public let emulator: AuthEmulator
    /// The session's clock, which tests move forward.
    public let time: TestClock
    /// The store's folder.
    public let folder: URL
    /// The provider configuration for the emulator's native client.
    public let configuration: ProviderConfiguration
    /// The provider client the session renews with.
    public let provider: ProviderClient
    /// The session manager under test.
    public let session: SessionManager

    /// A session for the emulator's native client over a file store in a new temporary folder.
    public static func make(
        _ emulator: AuthEmulator,
        scope: String = ProviderConfiguration.defaultScope,
        audience: String? = nil,
        requestTimeout: Duration = .seconds(5),
        policy: RenewalPolicy = .init()
    ) throws -> LiveSession {
        let time = TestClock()
        let folder = try TemporaryFolder(prefix: "sessionkit-session").url
        var configuration = try emulator.providerConfiguration(scope: scope, audience: audience)
        configuration.requestTimeout = requestTimeout
        let provider = ProviderClient(configuration: configuration, clock: time.clock)
        let session = SessionManager(
            provider: provider, store: try makeStore(folder), clock: time.clock, policy: policy)
        return LiveSession(
            emulator: emulator, time: time, folder: folder, configuration: configuration, provider: provider,
            session: session
        )
    }

    /// The encrypted file store in `folder`, with its key file beside the data.
    public static func makeStore(_ folder: URL, lockTimeout: Duration = .seconds(5)) throws -> EncryptedFileStore {
        let key = folder.appendingPathComponent("store.key").path
        return try EncryptedFileStore(
            service: "sessionkit-tests",
            configuration: .init(folder: folder.path, keySource: .keyFile(atPath: key), lockTimeout: lockTimeout)
        )
    }

    /// Another manager over the same store, as a relaunched app or a second process would have.
    public func relaunched(policy: RenewalPolicy = .init()) throws -> SessionManager {
        SessionManager(
            provider: ProviderClient(configuration: configuration, clock: time.clock),
            store: try Self.makeStore(folder),
            clock: time.clock,
            policy: policy
        )
    }

    /// Signs alice in with the password grant and stores the session.
    @discardableResult
    public func signIn() async throws -> Credentials {
        let credentials = try await provider.signIn(
            username: AuthEmulator.User.aliceEmail, password: Secret(AuthEmulator.User.alicePassword)
        )
        try await session.store(credentials)
        return credentials
    }

    /// Moves the session's clock past the access token's expiry.
    public func expire(_ credentials: Credentials) {
        time.advance(by: (credentials.expiresAt ?? Date()).timeIntervalSinceNow + 1)
    }

    /// Removes the store's folder.
    public func cleanUp() {
        try? FileManager.default.removeItem(at: folder)
    }
}
