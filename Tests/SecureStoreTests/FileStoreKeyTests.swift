import Crypto
import Foundation
import SecureStore
import SessionKitTesting
import Testing

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

@Suite("EncryptedFileStore: keys")
struct FileStoreKeyTests {
    @Test("the key file is created once and reused")
    func keyFileCreatedAndReused() async throws {
        try await TemporaryFolder.with { folder in
            let keyPath = folder + "/store.key"
            try makeFileStore(folder).setString("secret-value", forKey: "k")
            let key = try Data(contentsOf: URL(fileURLWithPath: keyPath))
            #expect(key.count == 32)
            let reopened = try makeFileStore(folder)
            #expect(try reopened.string(forKey: "k") == "secret-value")
            #expect(try Data(contentsOf: URL(fileURLWithPath: keyPath)) == key)
            let file = try Data(contentsOf: URL(fileURLWithPath: reopened.filePath))
            #expect(file.range(of: Data("secret-value".utf8)) == nil)
        }
    }

    @Test("a key file at a chosen path")
    func explicitKeyFile() async throws {
        try await TemporaryFolder.with { folder in
            let keyPath = folder + "/my.key"
            let configuration = EncryptedFileStore.Configuration(
                folder: folder + "/data",
                keySource: .keyFile(atPath: keyPath)
            )
            try EncryptedFileStore(service: "s", configuration: configuration).setString("v", forKey: "k")
            #expect(permissions(keyPath) == 0o600)
            #expect(try EncryptedFileStore(service: "s", configuration: configuration).string(forKey: "k") == "v")
            #expect(permissions(folder + "/data/store.key") == nil)
        }
    }

    @Test("a different key is keyMismatch, and a write with it changes nothing")
    func wrongKey() async throws {
        try await TemporaryFolder.with { folder in
            let store = try makeFileStore(folder, key: SymmetricKey(size: .bits256))
            try store.setString("v", forKey: "k")
            let before = try Data(contentsOf: URL(fileURLWithPath: store.filePath))
            let intruder = try makeFileStore(folder, key: SymmetricKey(size: .bits256))
            let readError = storeError { _ = try intruder.data(forKey: "k") }
            #expect(readError?.code == .keyMismatch)
            #expect(readError.map { "\($0)".contains(store.filePath) } == true)
            #expect(storeError { try intruder.setString("w", forKey: "k") }?.code == .keyMismatch)
            #expect(try Data(contentsOf: URL(fileURLWithPath: store.filePath)) == before)
            #expect(try store.string(forKey: "k") == "v")
        }
    }

    @Test("a key that is not 256 bits is rejected")
    func shortKey() async throws {
        try await TemporaryFolder.with { folder in
            let error = storeError { _ = try makeFileStore(folder, key: SymmetricKey(size: .bits128)) }
            #expect(error?.code == .invalidArgument)
        }
    }

    @Test("a key file of the wrong length is corrupted", arguments: [0, 16, 31, 33, 64])
    func keyFileWrongLength(_ length: Int) async throws {
        try await TemporaryFolder.with { folder in
            let keyPath = folder + "/store.key"
            #expect(FileManager.default.createFile(atPath: keyPath, contents: Data(count: length)))
            chmod(keyPath, 0o600)
            let error = storeError { _ = try makeFileStore(folder) }
            #expect(error?.code == .corrupted)
            #expect(error.map { "\($0)".contains(keyPath) } == true)
        }
    }

    @Test("a key file readable by others is refused", arguments: [0o644, 0o640, 0o604, 0o660])
    func keyFileLooseMode(_ mode: Int) async throws {
        try await TemporaryFolder.with { folder in
            let keyPath = folder + "/store.key"
            #expect(FileManager.default.createFile(atPath: keyPath, contents: Data(count: 32)))
            chmod(keyPath, mode_t(mode))
            let error = storeError { _ = try makeFileStore(folder) }
            #expect(error?.code == .permissionDenied)
            #expect(error.map { "\($0)".contains("chmod 600") } == true)
        }
    }
}
