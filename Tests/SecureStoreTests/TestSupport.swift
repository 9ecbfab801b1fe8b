import Crypto
import Foundation
import SecureStore

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

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
