import Foundation
import SecureStore
import SessionKitPostgresTestSupport
import Testing

@testable import SessionKitPostgres
@testable import SessionKitServer

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite("PostgresSessionStore failures")
struct FailureTests {
    static let password = "pw-\(UUID().uuidString)"

    @Test("A server that is down is unavailable, quickly, with no password in the message")
    func serverDown() async throws {
        var configuration = try PostgresSessionStore.Configuration(
            url: "postgres://sessionkit:\(Self.password)@127.0.0.1:1/sessionkit_test"
        )
        // "Quickly" means at the wait for a connection (1 s), not at the call's deadline (120 s): the bound below
        // leaves a loaded machine a minute, and still fails a store that waits for its deadline.
        configuration.connectTimeout = .seconds(1)
        configuration.acquireTimeout = .seconds(1)
        configuration.callTimeout = .seconds(120)
        let store = TestPostgres.running(
            try PostgresSessionStore(service: "tests.down", configuration: configuration, keys: TestPostgres.keys()))
        let clock = ContinuousClock()
        let calls: [@Sendable () async throws -> Void] = [
            { () async throws -> Void in _ = try await store.data(forKey: "k") },
            { () async throws -> Void in try await store.setString("v", forKey: "k") },
            { () async throws -> Void in _ = try await store.keys() },
            { () async throws -> Void in _ = try await store.update(forKey: "k") { $0 } },
            { () async throws -> Void in try await store.migrate() },
        ]
        for call in calls {
            let start = clock.now
            let error = await storeError(call)
            #expect(clock.now - start < .seconds(60), "the call waited for its deadline, not for a connection")
            #expect(error?.code == .unavailable)
            #expect(error?.isRetryable == true)
            let printed = "\(String(describing: error)) \(String(reflecting: error))"
            #expect(!printed.contains(Self.password))
            #expect(printed.contains("127.0.0.1:1"))
        }
        #expect(!"\(store)".contains(Self.password))
        #expect("\(configuration)" == "postgres://sessionkit:<REDACTED>@127.0.0.1:1/sessionkit_test?sslmode=prefer")
    }

    @Test("A server that accepts connections but never answers is unavailable after the connect timeout")
    func silentServer() async throws {
        let listener = try SilentListener()
        defer { listener.close() }
        let configuration = try PostgresSessionStore.Configuration(
            url: "postgres://sessionkit:\(Self.password)@127.0.0.1:\(listener.port)/sessionkit_test"
        )
        var bounded = configuration
        bounded.connectTimeout = .seconds(1)
        bounded.callTimeout = .seconds(3)
        let store = TestPostgres.running(
            try PostgresSessionStore(service: "tests.silent", configuration: bounded, keys: TestPostgres.keys()))
        let clock = ContinuousClock()
        let start = clock.now
        let error = await storeError { _ = try await store.data(forKey: "k") }
        #expect(clock.now - start < .seconds(6), "the call's deadline (3 s), with room for a loaded machine")
        #expect(error?.code == .unavailable)
        // No connection could be had by the call's deadline: the server did not answer.
        #expect(error?.message.contains("no connection to") == true, "\(String(describing: error))")
        #expect(!"\(String(describing: error))".contains(Self.password))
    }

    @Test("The database URL is parsed, and its errors hold no password")
    func databaseURL() async throws {
        #expect(
            await storeError { _ = try PostgresSessionStore.Configuration(url: "http://x/y") }?.code == .invalidArgument
        )
        let error = await storeError { _ = try PostgresSessionStore.Configuration(url: "postgres://u:secret@/db") }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("secret") == false)
        #expect(
            await storeError { _ = try PostgresSessionStore.Configuration(url: "postgres://u:p@h:5432/") }?.code
                == .invalidArgument)
        let parsed = try PostgresSessionStore.Configuration(url: "postgresql://us%40er:p%3Aw@db.local/sessions")
        #expect(parsed.username == "us@er" && parsed.password == "p:w" && parsed.port == 5432)
        #expect(parsed.database == "sessions")
    }

    @Test(
        "A wrong password is permission denied, not unavailable, and not printed",
        .enabled(if: TestPostgres.shouldRun, TestPostgres.skipNote))
    func wrongPassword() async throws {
        let store = try await TestPostgres.store { $0.password = Self.password }
        let error = await storeError { _ = try await store.data(forKey: "k") }
        #expect(error?.code == .permissionDenied)
        #expect(!"\(String(describing: error)) \(String(reflecting: error))".contains(Self.password))
    }

    @Test("Empty service and empty key are invalid arguments")
    func invalidArguments() async throws {
        let configuration = try PostgresSessionStore.Configuration(url: "postgres://u:p@127.0.0.1:1/db")
        #expect(
            await storeError {
                _ = try PostgresSessionStore(service: "", configuration: configuration, keys: TestPostgres.keys())
            }?.code == .invalidArgument)
        let store = TestPostgres.running(
            try PostgresSessionStore(service: "s", configuration: configuration, keys: TestPostgres.keys()))
        #expect(await storeError { _ = try await store.data(forKey: "") }?.code == .invalidArgument)
    }
}

/// A TCP socket on 127.0.0.1 that listens but never accepts: the kernel completes the handshake and the
/// client's first message goes unanswered, as with a hung server.
struct SilentListener {
    let fd: Int32
    let port: Int

    init() throws {
        #if canImport(Glibc)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0, listen(fd, 16) == 0 else { throw POSIXError(.EADDRINUSE) }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.fd = fd
        self.port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() {
        #if canImport(Glibc)
            _ = Glibc.close(fd)
        #else
            _ = Darwin.close(fd)
        #endif
    }
}
