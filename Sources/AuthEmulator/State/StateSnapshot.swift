import Foundation

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
            throw AuthEmulatorError(.stateFile, "Cannot read the state file \(path)", underlying: error)
        }
    }

    /// Writes the snapshot atomically, readable by the owner only (it holds the fixture users' passwords).
    func save(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            let url = URL(fileURLWithPath: path)
            try encoder.encode(self).write(to: url, options: .atomic)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        } catch {
            throw AuthEmulatorError(.stateFile, "Cannot write the state file \(path)", underlying: error)
        }
    }
}
