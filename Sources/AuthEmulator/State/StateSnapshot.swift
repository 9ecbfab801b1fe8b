import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What the optional state file keeps across restarts.
struct StateSnapshot: Sendable, Codable {
    var users: [AuthEmulator.User]
    var grants: [String: GrantRecord]
    var refreshTokens: [String: RefreshTokenRecord]
    var accessTokens: [String: AccessTokenRecord]
    var sessions: [String: BrowserSession]
    var keys: [SigningKey]
    var clockOffset: Double

    /// Reads a snapshot, or `nil` when the file does not exist yet.
    static func load(from path: String) throws -> StateSnapshot? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            return try JSONDecoder().decode(StateSnapshot.self, from: data)
        } catch {
            throw AuthEmulatorError(
                code: .stateFile, message: "Cannot read the state file \(path)", underlyingError: error)
        }
    }

    /// Writes the snapshot atomically, readable by the owner only (it holds the fixture users' passwords).
    func save(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            try Self.writeOwnerOnly(try encoder.encode(self), to: path)
        } catch {
            throw AuthEmulatorError(
                code: .stateFile, message: "Cannot write the state file \(path)", underlyingError: error)
        }
    }

    /// Writes `data` to a new file created 0600 (never readable by others, not even for an instant), then
    /// renames it over `path`.
    private static func writeOwnerOnly(_ data: Data, to path: String) throws {
        let temporary = path + ".tmp-\(UUID().uuidString)"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(fd) }
        guard fchmod(fd, 0o600) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        do {
            try FileHandle(fileDescriptor: fd, closeOnDealloc: false).write(contentsOf: data)
        } catch {
            unlink(temporary)
            throw error
        }
        guard fsync(fd) == 0, rename(temporary, path) == 0 else {
            let failure = POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            unlink(temporary)
            throw failure
        }
    }
}
