import Foundation
import SecureStore
import SessionKitTesting
import Testing

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// Issue 17, item 7: a store folder or key file of another user is refused; a key file's stale temporary
/// left by a killed creator is removed. Other users are made with `chown`, which needs root (as here and in
/// CI); without it the ownership test says so and skips.
@Suite("EncryptedFileStore: ownership and leftovers")
struct OwnershipTests {
    private static let nobody: uid_t = 65_534

    @Test(
        "a store folder or key file that belongs to another user is refused",
        .enabled(if: geteuid() == 0, "chown to another user needs root")
    )
    func anotherUsersFolder() async throws {
        try await TemporaryFolder.with { folder in
            try makeFileStore(folder).setString("v", forKey: "k")
            #expect(chown(folder + "/store.key", Self.nobody, Self.nobody) == 0)
            let keyFile = storeError { _ = try makeFileStore(folder) }
            #expect(keyFile?.code == .permissionDenied)
            #expect(keyFile?.message.contains("belongs to user 65534") == true, "\(String(describing: keyFile))")
            #expect(chown(folder + "/store.key", 0, 0) == 0)
            #expect(chown(folder, Self.nobody, Self.nobody) == 0)
            let store = storeError { _ = try makeFileStore(folder) }
            #expect(store?.code == .permissionDenied)
            #expect(store?.message.contains("store folder") == true)
            #expect(chown(folder, 0, 0) == 0)
            #expect(try makeFileStore(folder).string(forKey: "k") == "v")
        }
    }

    @Test("a key file's temporary left by a killed creator is removed once stale, a fresh one is left alone")
    func staleKeyTemporaries() async throws {
        try await TemporaryFolder.with { folder in
            let stale = folder + "/store.key.tmp-dead"
            let fresh = folder + "/store.key.tmp-busy"
            for path in [stale, fresh] {
                #expect(FileManager.default.createFile(atPath: path, contents: Data(count: 32)))
            }
            let old = Date().addingTimeInterval(-120)
            try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: stale)
            try makeFileStore(folder).setString("v", forKey: "k")
            let names = try TemporaryFolder.contents(folder)
            #expect(!names.contains("store.key.tmp-dead"))
            #expect(names.contains("store.key.tmp-busy"), "it may belong to a creator still at work")
        }
    }
}
