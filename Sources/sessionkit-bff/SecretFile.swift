import Crypto
import Foundation
import SessionKitSupport

/// Files that hold secrets: readable by their owner only.
enum SecretFile {
    /// The file's text, after checking that neither group nor others may read it.
    static func read(_ path: String, what: String) throws -> String {
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: path)
        } catch {
            throw ExampleFailure("the \(what) file \(path) cannot be read; check the path", code: 4)
        }
        if let mode = attributes[.posixPermissions] as? Int, mode & 0o077 != 0 {
            throw ExampleFailure(
                "the \(what) file \(path) can be read by others (mode \(String(mode, radix: 8))); run chmod 600 \(path)",
                code: 4)
        }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw ExampleFailure("the \(what) file \(path) is not UTF-8 text", code: 4)
        }
        return text
    }
}

/// The key that seals sessions at rest: 64 hex digits in a 0600 file, created at random when the default file is
/// missing.
enum SealingKeyFile {
    static var defaultPath: String {
        let state =
            ProcessInfo.processInfo.environment["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (NSHomeDirectory() + "/.local/state")
        return state + "/sessionkit-bff/sealing-key"
    }

    static func load(_ given: String?) throws -> SymmetricKey {
        let path = given ?? defaultPath
        if given == nil && !FileManager.default.fileExists(atPath: path) { try create(path) }
        let hex = try SecretFile.read(path, what: "sealing key").trimmingCharacters(in: .whitespacesAndNewlines)
        guard let bytes = Hex.bytes(hex.utf8), bytes.count == 32 else {
            throw ExampleFailure("the sealing key file \(path) must hold 64 hex digits (a 256-bit key)", code: 4)
        }
        return SymmetricKey(data: bytes)
    }

    private static func create(_ path: String) throws {
        let folder = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(
            atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let hex = SymmetricKey(size: .bits256).withUnsafeBytes { Hex.string($0) }
        guard
            FileManager.default.createFile(
                atPath: path, contents: Data(hex.utf8), attributes: [.posixPermissions: 0o600])
        else { throw ExampleFailure("the sealing key file \(path) cannot be created", code: 4) }
    }
}
