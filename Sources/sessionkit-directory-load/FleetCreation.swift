import Foundation
import SecureStore
import SessionKit
import SessionKitPostgres
import SessionKitServer

/// Signs in `count` sessions (the password grant, so each has its own refresh token) and writes their ids,
/// one per line, to `LOAD_IDS_FILE`: the set-up of `Benchmarks/server.sh`.
struct FleetCreation {
    let settings: LoadSettings

    func run(count: Int) async throws {
        try await settings.store.migrate()
        let directory = SessionDirectory(provider: settings.provider, store: settings.store, capacity: 1)
        let started = ContinuousClock.now
        let ids = try await withThrowingTaskGroup(of: SessionID.self) { group in
            var ids: [SessionID] = []
            for index in 0..<count {
                if index >= settings.concurrency, let id = try await group.next() { ids.append(id) }
                group.addTask {
                    var credentials = try await settings.provider.signIn(
                        username: settings.username, password: Secret(settings.password))
                    if settings.expired { credentials = Self.expired(credentials) }
                    return try await directory.create(credentials)
                }
            }
            return try await group.reduce(into: ids) { $0.append($1) }
        }
        try ids.map(\.rawValue).joined(separator: "\n")
            .write(toFile: settings.idsFile, atomically: true, encoding: .utf8)
        FileHandle.standardError.write(Data("created \(ids.count) sessions in \(ContinuousClock.now - started)\n".utf8))
    }

    /// `credentials` as stored once their access token has expired (renewed tokens are not renewed again).
    static func expired(_ credentials: Credentials) -> Credentials {
        var expired = credentials
        expired.expiresAt = Date(timeIntervalSinceNow: -1)
        expired.receivedAt = Date(timeIntervalSinceNow: -3600)
        return expired
    }
}
