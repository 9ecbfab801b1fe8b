import Foundation
import SecureStore
import SessionKitTestSupport
import SessionKitTesting
import Testing

@Suite(
    "Envelope storage: the keyring holds the key, the file holds the data",
    .enabled(if: TestKeyring.shouldRun, "needs an unlocked Secret Service: run under scripts/with-keyring")
)
struct SecretServiceEnvelopeTests {
    @Test("a session written through the keyring key reads back after reopening; no key touches the disk")
    func roundTrip() async throws {
        try TestKeyring.require()
        try await TestKeyring.withAccess {
            try await TemporaryFolder.with { folder in
                let service = "envelope.\(UUID().uuidString)"
                let first = try StoreSelection.make(service: service, folder: folder)
                #expect(first.backend == .keyring)
                #expect(first.backendDescription == "keyring+encrypted-file")
                #expect(first.warning == nil)
                let session = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
                try first.store.setData(session, forKey: "session")
                #expect(try TemporaryFolder.contents(folder).filter { $0.hasSuffix(".key") } == [])

                let reopened = try StoreSelection.make(service: service, folder: folder, policy: .requireKeyring)
                #expect(try reopened.store.data(forKey: "session") == session)
                let keyItems = SecretServiceStore(service: service + ".file-key")
                #expect(try keyItems.keys() == [URL(fileURLWithPath: folder).standardizedFileURL.path])
                #expect(try keyItems.data(forKey: keyItems.keys()[0])?.count == 32)

                // Another key for the same folder cannot read the data: the key really is the keyring's.
                let keyFileStore = try makeFileStore(folder, service: service)
                #expect(storeError { _ = try keyFileStore.keys() }?.code == .keyMismatch)
                try keyItems.deleteAll()
            }
        }
    }

    @Test("items are labelled and attributed for keyring browsers (secret-tool search)")
    func visibleToSecretTool() async throws {
        try TestKeyring.require()
        try await TestKeyring.withAccess {
            let service = "visible.\(UUID().uuidString)"
            let store = SecretServiceStore(service: service)
            try store.setString("token-value", forKey: "refresh_token")
            defer { try? store.deleteAll() }
            let output = try runSecretTool(["search", "--all", "service", service])
            #expect(output.contains("label = SessionKit: \(service) refresh_token"))
            #expect(output.contains("schema = \(SecretServiceStore.schemaName)"))
            #expect(output.contains("attribute.service = \(service)"))
            #expect(output.contains("attribute.account = refresh_token"))
            #expect(output.contains("attribute.application = sessionkit"))
        }
    }

    @Test("with the store encrypted by the keyring key, a child without D-Bus gets 'unavailable', never a new key")
    func noFallbackOverKeyringData() async throws {
        try TestKeyring.require()
        try await TestKeyring.withAccess {
            try await TemporaryFolder.with { folder in
                let service = "nofallback.\(UUID().uuidString)"
                try StoreSelection.make(service: service, folder: folder).store.setString("s", forKey: "session")
                // Past the kernel keyring's copy of the key (its timeout): only the keyring itself could answer.
                try KernelKeyringTests.forgetCachedKey(service: service, folder: folder)
                let run = try await SelectionChild.run(folder: folder, service: service, policy: "auto", bus: .none)
                #expect(run.status == .exited(3), "\(run.report)")
                #expect(run.report.contains("encrypted with a key held in the keyring"))
                #expect(!FileManager.default.fileExists(atPath: folder + "/store.key"))
                let again = try StoreSelection.make(service: service, folder: folder, policy: .requireKeyring)
                #expect(try again.store.string(forKey: "session") == "s")
                try SecretServiceStore(service: service + ".file-key").deleteAll()
            }
        }
    }

    @Test("a store written with a key file stays on it (auto, with a warning) and is refused by keyring-only")
    func existingKeyFileStore() async throws {
        try TestKeyring.require()
        try await TestKeyring.withAccess {
            try await TemporaryFolder.with { folder in
                let service = "keyfile.\(UUID().uuidString)"
                let written = try StoreSelection.make(service: service, folder: folder, policy: .fileOnly)
                try written.store.setString("kept", forKey: "session")

                let automatic = try StoreSelection.make(service: service, folder: folder)
                guard case .keyFile(let reason?) = automatic.backend else {
                    Issue.record("expected the key file with a reason, got \(automatic.backend)")
                    return
                }
                #expect(reason.contains("was created with the key file"))
                #expect(automatic.warning?.contains("delete that file") == true)
                #expect(try automatic.store.string(forKey: "session") == "kept")

                let required = storeError {
                    _ = try StoreSelection.make(service: service, folder: folder, policy: .requireKeyring)
                }
                #expect(required?.code == .unavailable)
                #expect(try SecretServiceStore(service: service + ".file-key").keys() == [])
            }
        }
    }

    /// Runs `secret-tool` with `arguments` and returns its output (it prints attributes on standard error).
    private func runSecretTool(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["secret-tool"] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "secret-tool failed; install libsecret-tools")
        return String(decoding: output, as: UTF8.self)
    }
}

/// Issue 17, item 3: several processes using the keyring for a folder for the first time at once must end
/// up with one key, and every one of them must be able to read what the others wrote.
@Suite(
    "Keyring key: first use from many processes at once",
    .enabled(if: TestKeyring.shouldRun, "needs an unlocked Secret Service: run under scripts/with-keyring")
)
struct KeyringFirstUseTests {
    @Test("eight processes racing on first use create one key, and the store stays readable")
    func race() async throws {
        try TestKeyring.require()
        try await TestKeyring.withAccess {
            try await TemporaryFolder.with { folder in
                let service = "first-use.\(UUID().uuidString)"
                let children = try (0..<8).map { index in
                    try ChildProcess.spawn(
                        try ChildProcess.toolPath(),
                        [folder, service, "select", "keyring", folder + "/report-\(index)"],
                        environment: ProcessInfo.processInfo.environment)
                }
                let results = try await onDedicatedThread { children.map { $0.wait() } }
                #expect(results.allSatisfy { $0 == .exited(0) }, "\(results)")
                let keyItems = SecretServiceStore(service: service + ".file-key")
                #expect(try keyItems.keys().count == 1, "one key for the folder")
                let reopened = try StoreSelection.make(service: service, folder: folder, policy: .requireKeyring)
                #expect(try reopened.store.string(forKey: "probe") == "written")
                try keyItems.deleteAll()
            }
        }
    }
}
