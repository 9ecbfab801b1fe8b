import Crypto
import Foundation
import SecureStore
import SessionKitTesting
import Testing

@Suite("EncryptedFileStore: damaged files")
struct FileStoreTamperTests {
    /// A store with two items, and its file's bytes.
    private func populated(_ folder: String) throws -> (EncryptedFileStore, Data) {
        let store = try makeFileStore(folder)
        try store.setString("refresh-token-value", forKey: "refresh_token")
        try store.setData(Data(repeating: 7, count: 300), forKey: "blob")
        return (store, try Data(contentsOf: URL(fileURLWithPath: store.filePath)))
    }

    private func expectCorrupted(_ store: EncryptedFileStore, sourceLocation: SourceLocation = #_sourceLocation) {
        let error = storeError { _ = try store.data(forKey: "refresh_token") }
        #expect(error?.code == .corrupted, sourceLocation: sourceLocation)
        #expect(storeError { _ = try store.keys() }?.code == .corrupted, sourceLocation: sourceLocation)
        #expect(
            storeError { try store.setString("x", forKey: "other") }?.code == .corrupted, sourceLocation: sourceLocation
        )
        if let error {
            #expect("\(error)".contains(store.filePath), sourceLocation: sourceLocation)
            #expect(!"\(error)".contains("refresh-token-value"), sourceLocation: sourceLocation)
        }
    }

    @Test("a flipped bit anywhere is corrupted (magic, version, key check, nonce, ciphertext, tag)")
    func flippedByte() async throws {
        try await TemporaryFolder.with { folder in
            let (store, original) = try populated(folder)
            let positions = [
                0, 3, 4, 5, 12, 20, 21, 32, 33, original.count / 2, original.count - 17, original.count - 1,
            ]
            for position in positions {
                var damaged = original
                damaged[position] ^= 0x01
                try damaged.write(to: URL(fileURLWithPath: store.filePath))
                expectCorrupted(store)
            }
            try original.write(to: URL(fileURLWithPath: store.filePath))
            #expect(try store.string(forKey: "refresh_token") == "refresh-token-value")
        }
    }

    @Test("a truncated file is corrupted, never empty")
    func truncated() async throws {
        try await TemporaryFolder.with { folder in
            let (store, original) = try populated(folder)
            let lengths = [0, 1, 4, 5, 21, 33, 48, 49, original.count / 2, original.count - 16, original.count - 1]
            for length in lengths {
                try original.prefix(length).write(to: URL(fileURLWithPath: store.filePath))
                expectCorrupted(store)
            }
        }
    }

    @Test("bytes appended to the file are corrupted")
    func appended() async throws {
        try await TemporaryFolder.with { folder in
            let (store, original) = try populated(folder)
            try (original + Data([0])).write(to: URL(fileURLWithPath: store.filePath))
            expectCorrupted(store)
        }
    }

    @Test("a file copied from another service is corrupted")
    func swappedBetweenServices() async throws {
        try await TemporaryFolder.with { folder in
            let (store, _) = try populated(folder)
            // Same length as "com.example.app", so only the service's bytes tell the files apart.
            let other = try makeFileStore(folder, service: "com.example.apq")
            try other.setString("other-value", forKey: "refresh_token")
            let otherBytes = try Data(contentsOf: URL(fileURLWithPath: other.filePath))
            try otherBytes.write(to: URL(fileURLWithPath: store.filePath))
            expectCorrupted(store)
            #expect(try other.string(forKey: "refresh_token") == "other-value")
        }
    }

    @Test("a damaged file can be cleared with deleteAll")
    func deleteAllRecovers() async throws {
        try await TemporaryFolder.with { folder in
            let (store, original) = try populated(folder)
            try original.prefix(10).write(to: URL(fileURLWithPath: store.filePath))
            try store.deleteAll()
            #expect(try store.keys() == [])
            try store.setString("fresh", forKey: "k")
            #expect(try store.string(forKey: "k") == "fresh")
        }
    }
}
