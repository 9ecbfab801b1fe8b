import Foundation
import SecureStore
import SessionKitTesting
import Testing

@Suite("StoreSelection without a keyring: fallback or a typed error, never a hang")
struct StoreSelectionTests {
    @Test("no D-Bus session: auto falls back to the key file and says why")
    func noBusAutomatic() async throws {
        try await TemporaryFolder.with { folder in
            let run = try await SelectionChild.run(folder: folder, service: "s", policy: "auto", bus: .none)
            #expect(run.status == .exited(0), "\(run.report)")
            #expect(run.report.hasPrefix("encrypted-file (key file fallback: "))
            #expect(run.report.contains("not reachable"))
            #expect(run.report.contains("no D-Bus session bus"), "said before libsecret is loaded")
            #expect(FileManager.default.fileExists(atPath: folder + "/store.key"))
        }
    }

    @Test("no D-Bus session: keyring required is 'unavailable' with what to do, and nothing is created")
    func noBusRequired() async throws {
        try await TemporaryFolder.with { folder in
            let run = try await SelectionChild.run(folder: folder, service: "s", policy: "keyring", bus: .none)
            #expect(run.status == .exited(3), "\(run.report)")
            #expect(run.report.contains("secure store unavailable"))
            #expect(run.report.contains("use the file store"))
            #expect(
                try TemporaryFolder.contents(folder).filter { $0.hasSuffix(".key") || $0.hasSuffix(".store") } == [])
        }
    }

    @Test("a keyring that never answers: every policy returns within the timeout")
    func silentKeyring() async throws {
        try await TemporaryFolder.with { folder in
            let socket = try SilentSocket(folder: folder)
            let bus = SelectionChild.Bus.silent(socketPath: socket.path)
            let required = try await SelectionChild.run(
                folder: folder, service: "s", policy: "keyring", bus: bus, timeoutMilliseconds: 500)
            #expect(required.status == .exited(3), "\(required.report)")
            #expect(required.report.contains("did not answer within"))
            #expect(required.elapsed < .seconds(20))
            let automatic = try await SelectionChild.run(
                folder: folder, service: "s", policy: "auto", bus: bus, timeoutMilliseconds: 500)
            #expect(automatic.status == .exited(0), "\(automatic.report)")
            #expect(automatic.report.contains("key file fallback"))
            #expect(automatic.elapsed < .seconds(20))
        }
    }

    @Test("file policy never asks the keyring and reports no fallback")
    func fileOnly() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let selection = try StoreSelection.make(service: "s", folder: folder.path, policy: .fileOnly)
        #expect(selection.backend == .keyFile(fallbackReason: nil))
        #expect(selection.backendDescription == "encrypted-file (key file)")
        #expect(selection.warning == nil)
        try selection.store.setString("v", forKey: "k")
        #expect(FileManager.default.fileExists(atPath: folder.path + "/store.key"))
    }

    @Test("a store written with the key file stays on it when the keyring appears, with a warning")
    func existingKeyFileStore() async throws {
        try await TemporaryFolder.with { folder in
            let written = try StoreSelection.make(service: "s", folder: folder, policy: .fileOnly)
            try written.store.setString("kept", forKey: "session")
            let run = try await SelectionChild.run(folder: folder, service: "s", policy: "auto", bus: .inherited)
            #expect(run.status == .exited(0), "\(run.report)")
            #expect(run.report.hasPrefix("encrypted-file (key file"))
            let reopened = try StoreSelection.make(service: "s", folder: folder, policy: .fileOnly)
            #expect(try reopened.store.string(forKey: "session") == "kept")
        }
    }
}
