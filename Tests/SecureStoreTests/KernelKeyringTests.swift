import Crypto
import Foundation
import SecureStore
import SecureStoreTesting
import SessionKitTestSupport
import SessionKitTesting
import Synchronization
import Testing

/// The Linux kernel keyring as the encrypted store's key holder (`--store kernel`), and as the Secret Service key's
/// cache. Real keyctl calls on this machine's user keyring; each test uses keys named after its own temporary folder.
@Suite("Kernel keyring: the store key never on disk")
struct KernelKeyringTests {
    static func store(_ folder: String, service: String = "kernel-tests") throws -> EncryptedFileStore {
        try EncryptedFileStore(service: service, configuration: .init(folder: folder, keySource: .kernelKeyring))
    }

    @Test("the store works with its key in the kernel keyring, and nothing of the key is in the folder")
    func roundTrip() async throws {
        try await TemporaryFolder.with { folder in
            let store = try Self.store(folder)
            try store.setString("value", forKey: "item")
            #expect(try Self.store(folder).string(forKey: "item") == "value", "another opening finds the same key")
            let files = try FileManager.default.contentsOfDirectory(atPath: folder)
            #expect(!files.contains { $0.hasSuffix(".key") }, "\(files)")
            try Self.forget(folder: folder)
        }
    }

    @Test(
        "the store conformance suite passes with the kernel keyring's key",
        arguments: SecureStoreConformance.Check.allCases)
    func conformance(_ check: SecureStoreConformance.Check) async throws {
        let fixtures = try StoredFormatFixtures.storedValues()
        let services = Mutex<Set<String>>([])
        try await TemporaryFolder.with { folder in
            try await SecureStoreConformance { service in
                services.withLock { _ = $0.insert(service) }
                return try Self.store(folder, service: service)
            }.storing(fixtures).run(check)
            // Nothing left in this user's kernel keyring.
            for service in services.withLock({ $0 }) { try Self.forget(folder: folder, service: service) }
        }
    }

    @Test("keyctl directly: payloads shorter and longer than the first read's buffer, replaced, removed, missing")
    func systemCalls() async throws {
        try await TemporaryFolder.with { folder in
            let kernel = try KernelKeyring.shared.get()
            let description = "sessionkit-tests:syscalls:\(folder)"
            #expect(try kernel.read(description) == nil)
            for size in [1, 32, 64, 65, 4000] {  // the kernel refuses an empty "user" key (EINVAL)
                let payload = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ size) })
                try kernel.write(description, payload)
                #expect(try kernel.read(description) == payload, "\(size) bytes")
            }
            try kernel.remove(description)
            #expect(try kernel.read(description) == nil)
            try kernel.remove(description)  // removing a missing key is not an error
        }
    }

    @Test("the Secret Service key is cached in the kernel keyring with a timeout, and read from there")
    func secretServiceCache() async throws {
        try await TemporaryFolder.with { folder in
            let path = URL(fileURLWithPath: folder).standardizedFileURL.path
            let description = "sessionkit-cache:kernel-tests.file-key:\(path)"
            let kernel = try KernelKeyring.shared.get()
            // What the cache holds is what the keyring's key is: a store opened from the cache alone (the keyring
            // itself is not asked; its service name here has no such item) reads what was written.
            let key = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
            try kernel.write(description, key, timeout: 2)
            let cached = try EncryptedFileStore(
                service: "kernel-tests",
                configuration: .init(folder: folder, keySource: .secretService(.init(application: "sessionkit-tests"))))
            try cached.setString("value", forKey: "item")
            let direct = try EncryptedFileStore(
                service: "kernel-tests", configuration: .init(folder: folder, keySource: .key(SymmetricKey(data: key))))
            #expect(try direct.string(forKey: "item") == "value", "the cached key is the store's key")
            try await Task.sleep(for: .milliseconds(2_500))
            #expect(try kernel.read(description) == nil, "gone after its timeout")
        }
    }

    @Test("a lost key (a restart) is an unavailable store that says what to do, never an empty one")
    func lostKey() async throws {
        try await TemporaryFolder.with { folder in
            try Self.store(folder).setString("value", forKey: "item")
            try Self.forget(folder: folder)
            let error = #expect(throws: SecureStoreError.self) { try Self.store(folder).string(forKey: "item") }
            #expect(error?.code == .unavailable)
            #expect(error?.message.contains("remove that file and sign in again") == true)
            try Self.forget(folder: folder)
        }
    }

    @Test("StoreSelection .kernel: the backend is named, and a store made with a key file is not silently re-keyed")
    func selection() async throws {
        try await TemporaryFolder.with { folder in
            let selection = try StoreSelection.make(service: "kernel-tests", folder: folder, policy: .kernel)
            #expect(selection.backend == .kernelKeyring && selection.warning == nil)
            #expect(selection.backendDescription == "kernel-keyring+encrypted-file")
            try Self.forget(folder: folder)
        }
        try await TemporaryFolder.with { folder in
            try StoreSelection.make(service: "kernel-tests", folder: folder, policy: .fileOnly).store
                .setString("v", forKey: "k")
            let error = #expect(throws: SecureStoreError.self) {
                try StoreSelection.make(service: "kernel-tests", folder: folder, policy: .kernel)
            }
            #expect(error?.message.contains("key file") == true)
        }
    }

    /// Removes the Secret Service key that the kernel keyring caches for `service`'s store in `folder`, as its timeout
    /// would: the keyring itself is asked again.
    static func forgetCachedKey(service: String, folder: String) throws {
        let path = URL(fileURLWithPath: folder).standardizedFileURL.path
        try KernelKeyring.shared.get().remove("sessionkit-cache:\(service).file-key:\(path)")
    }

    /// Removes the folder's key from the kernel keyring, as a restart would.
    static func forget(folder: String, service: String = "kernel-tests") throws {
        let path = URL(fileURLWithPath: folder).standardizedFileURL.path
        try KernelKeyring.shared.get().remove("sessionkit:\(service):\(path)")
    }
}
