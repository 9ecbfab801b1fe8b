import AuthEmulator
import Foundation
import SecureStore
import SessionKit
import SessionKitTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A session wired to a live emulator, with a file store in a fresh temporary folder.
struct LiveSession {
    let emulator: AuthEmulator
    let time: TestClock
    let folder: URL
    let configuration: ProviderConfiguration
    let provider: ProviderClient
    let session: SessionManager

    static func make(
        _ emulator: AuthEmulator,
        scope: String = ProviderConfiguration.defaultScope,
        audience: String? = nil,
        requestTimeout: Duration = .seconds(5),
        policy: RenewalPolicy = .init()
    ) throws -> LiveSession {
        let time = TestClock()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sessionkit-tests-\(UUID().uuidString)")
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

    static func makeStore(_ folder: URL, lockTimeout: Duration = .seconds(5)) throws -> EncryptedFileStore {
        let key = folder.appendingPathComponent("store.key").path
        return try EncryptedFileStore(
            service: "sessionkit-tests",
            configuration: .init(folder: folder.path, keySource: .keyFile(atPath: key), lockTimeout: lockTimeout)
        )
    }

    /// Another manager over the same store, as a relaunched app or a second process would have.
    func relaunched(policy: RenewalPolicy = .init()) throws -> SessionManager {
        SessionManager(
            provider: ProviderClient(configuration: configuration, clock: time.clock),
            store: try Self.makeStore(folder),
            clock: time.clock,
            policy: policy
        )
    }

    /// Signs alice in with the password grant and stores the session.
    @discardableResult
    func signIn() async throws -> Credentials {
        let credentials = try await provider.signIn(
            username: AuthEmulator.User.aliceEmail, password: Secret(AuthEmulator.User.alicePassword)
        )
        try await session.store(credentials)
        return credentials
    }

    /// Moves the session's clock past the access token's expiry.
    func expire(_ credentials: Credentials) {
        time.advance(by: (credentials.expiresAt ?? Date()).timeIntervalSinceNow + 1)
    }

    func cleanUp() {
        try? FileManager.default.removeItem(at: folder)
    }
}

/// Holds the store's file lock, as another process writing at that moment would.
final class FileLockHolder {
    private let descriptor: Int32

    init(folder: URL) throws {
        let name = try #require(
            try FileManager.default.contentsOfDirectory(atPath: folder.path).first { $0.hasSuffix(".store.lock") }
        )
        descriptor = open(folder.appendingPathComponent(name).path, O_RDWR)
        guard descriptor >= 0, flock(descriptor, LOCK_EX) == 0 else {
            throw CocoaError(.fileLocking)
        }
    }

    func release() {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}

/// Waits until `condition` holds, checking every 50 ms, for at most `timeout`; an event to wait for,
/// instead of a guess at how long it takes on a loaded machine.
func waitUntil(timeout: Duration = .seconds(30), _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while try await !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("the awaited condition did not hold within \(timeout)")
            return
        }
        try await Task.sleep(for: .milliseconds(50))
    }
}
