import Crypto
import Foundation
import SecureStore

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// A fresh folder under the system's temporary folder, removed by ``remove()``.
struct TemporaryFolder {
    let path: String

    init() throws {
        let base = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("securestore-test-XXXXXX")
        var template = Array(base.path.utf8CString)
        guard mkdtemp(&template) != nil else {
            throw SecureStoreError(code: .ioFailure, message: "mkdtemp failed with errno \(errno)")
        }
        path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Runs `body` with a new folder and removes the folder afterwards.
    static func with<R>(_ body: (String) async throws -> R) async throws -> R {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        return try await body(folder.path)
    }

    /// The names of the files in `path`, sorted.
    static func contents(_ path: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path).sorted()
    }
}

/// The permission bits of the file at `path` (`lstat`, following no links), or `nil` when it is missing.
func permissions(_ path: String) -> mode_t? {
    guard let mode = (try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? Int else {
        return nil
    }
    return mode_t(mode & 0o777)
}

/// A file store in `folder` for `service`, with an optional explicit key.
func makeFileStore(
    _ folder: String,
    service: String = "com.example.app",
    key: SymmetricKey? = nil
) throws -> EncryptedFileStore {
    let source: EncryptedFileStore.KeySource = key.map { .key($0) } ?? .defaultKeyFile
    return try EncryptedFileStore(service: service, configuration: .init(folder: folder, keySource: source))
}

/// Runs `body`, returning the `SecureStoreError` it throws, or `nil` when it throws none.
func storeError(_ body: () throws -> Void) -> SecureStoreError? {
    do {
        try body()
        return nil
    } catch let error as SecureStoreError {
        return error
    } catch {
        return SecureStoreError(code: .ioFailure, message: "unexpected error type: \(error)")
    }
}

/// The crash test writer's value for step `n` (mirrors `payload(_:)` in securestore-tool).
func toolPayload(_ n: Int) -> Data {
    Data(("\(n):" + String(repeating: String(n % 10), count: 16384)).utf8)
}

/// Runs blocking work (`waitpid`, `usleep`) on a thread of its own. Swift's cooperative pool has one
/// thread per core (two in CI); a test that blocks them stalls every other test in the process.
/// Expectations belong in the caller, where Swift Testing can attribute them to the test.
func onDedicatedThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
