import Foundation
import SecureStore
import SessionKitTesting
import Testing

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

@Suite("EncryptedFileStore: folder, files and modes")
struct FileStoreLayoutTests {
    @Test("folder 0700, data, lock and key files 0600")
    func modes() async throws {
        try await TemporaryFolder.with { root in
            let folder = root + "/state/sessionkit"
            let store = try makeFileStore(folder)
            try store.setString("v", forKey: "k")
            #expect(permissions(folder) == 0o700)
            #expect(permissions(root + "/state") == 0o700)
            #expect(permissions(store.filePath) == 0o600)
            #expect(permissions(store.filePath + ".lock") == 0o600)
            #expect(permissions(folder + "/store.key") == 0o600)
            #expect(try TemporaryFolder.contents(folder).count == 3)
        }
    }

    @Test("modes hold under umask 000 (in a child process)")
    func modesUnderPermissiveUmask() async throws {
        let tool = try ChildProcess.toolPath()
        try await TemporaryFolder.with { root in
            let folder = root + "/new"
            let child = try ChildProcess.spawn(tool, ["--umask", "000", folder, "svc", "set", "k", "v"])
            #expect(try await child.termination() == .exited(0))
            let store = try makeFileStore(folder, service: "svc")
            #expect(try store.string(forKey: "k") == "v")
            #expect(permissions(folder) == 0o700)
            #expect(permissions(store.filePath) == 0o600)
            #expect(permissions(store.filePath + ".lock") == 0o600)
            #expect(permissions(folder + "/store.key") == 0o600)
        }
    }

    @Test("a looser existing folder and store file are tightened")
    func tightensLooseModes() async throws {
        try await TemporaryFolder.with { folder in
            let first = try makeFileStore(folder)
            try first.setString("v", forKey: "k")
            chmod(folder, 0o755)
            chmod(first.filePath, 0o644)
            let second = try makeFileStore(folder)
            #expect(permissions(folder) == 0o700)
            #expect(permissions(second.filePath) == 0o600)
            #expect(try second.string(forKey: "k") == "v")
        }
    }

    @Test("a missing folder, with missing parents, is created")
    func createsMissingFolder() async throws {
        try await TemporaryFolder.with { root in
            let folder = root + "/a/b/c"
            #expect(permissions(folder) == nil)
            let store = try makeFileStore(folder)
            #expect(permissions(folder) == 0o700)
            #expect(try store.keys() == [])
        }
    }

    @Test("service names cannot escape the folder", arguments: ["../../etc/passwd", "/abs/path", "..", ".", "a/b"])
    func serviceNameIsEncoded(_ service: String) async throws {
        try await TemporaryFolder.with { folder in
            let store = try makeFileStore(folder, service: service)
            try store.setString("v", forKey: "k")
            let name = String(store.filePath.dropFirst(folder.count + 1))
            #expect(store.filePath.hasPrefix(folder + "/"))
            #expect(!name.contains("/"))
            #expect(name.hasSuffix(".store"))
            #expect(try TemporaryFolder.contents(folder).contains(name))
            #expect(try makeFileStore(folder, service: service + "x").filePath != store.filePath)
        }
    }

    @Test("default folder follows XDG_STATE_HOME, else ~/.local/state")
    func defaultFolder() {
        typealias Configuration = EncryptedFileStore.Configuration
        #expect(
            Configuration.defaultFolder(environment: ["XDG_STATE_HOME": "/x/state", "HOME": "/h"])
                == "/x/state/sessionkit")
        #expect(
            Configuration.defaultFolder(environment: ["XDG_STATE_HOME": "rel", "HOME": "/h"])
                == "/h/.local/state/sessionkit")
        #expect(Configuration.defaultFolder(environment: ["HOME": "/h"]) == "/h/.local/state/sessionkit")
    }

    @Test("a store file larger than one read (64 KiB) and an empty item read back whole in a new instance")
    func largeStoreFile() async throws {
        try await TemporaryFolder.with { root in
            let big = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            let writer = try makeFileStore(root)
            try writer.setData(big, forKey: "big")
            try writer.setData(Data(), forKey: "empty")
            let size = try FileManager.default.attributesOfItem(atPath: writer.filePath)[.size] as? Int ?? 0
            #expect(size > 300_000)
            let reader = try makeFileStore(root)
            #expect(try reader.data(forKey: "big") == big)
            #expect(try reader.data(forKey: "empty") == Data())
        }
    }

    @Test("empty service and empty folder are invalid arguments")
    func invalidArguments() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let emptyService = storeError { _ = try makeFileStore(folder.path, service: "") }
        #expect(emptyService?.code == .invalidArgument)
        let emptyFolder = storeError { _ = try EncryptedFileStore(service: "s", configuration: .init(folder: "")) }
        #expect(emptyFolder?.code == .invalidArgument)
    }
}
