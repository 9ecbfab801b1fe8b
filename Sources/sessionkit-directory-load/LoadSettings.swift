import Crypto
import Foundation
import MetricsTestKit
import SecureStore
import SessionKit
import SessionKitPostgres
import SessionKitServer
import SessionKitSupport

/// The load program's settings, read from the environment (see ``DirectoryLoad``).
struct LoadSettings {
    let store: PostgresSessionStore
    /// The store's calls, counted by operation.
    let storeMetrics = TestMetrics()
    let provider: ProviderClient
    let idsFile: String
    let minTTL: TimeInterval
    let rounds: Int
    let concurrency: Int
    let retryFor: Duration
    let watchFor: Duration
    let create: Int?
    /// `LOAD_STATEMENT_COST=N`: time N statements through the store and through PostgresNIO alone instead
    /// (``StatementCost``), `concurrency` at a time.
    let statementCost: Int?
    let username: String
    let password: String
    let expired: Bool
    /// `LOAD_FLOOR=1`: the provider floor of a storm: this instance's share of the sessions (`LOAD_SHARD`) renewed
    /// straight at the provider with `ProviderClient.renew`, no store and no directory.
    let floor: Bool
    /// `LOAD_SHARD=I/N`: with `LOAD_FLOOR`, the sessions whose index is I modulo N.
    let shardIndex: Int
    let shardCount: Int
    /// `LOAD_HOLD_FILE`: after the rounds, print `held`, wait for this file to appear (the benchmark freezes
    /// PostgreSQL meanwhile), then run one more round and summarise it as `held round`.
    let holdFile: String?
    /// `LOAD_READY_FILE` and `LOAD_START_FILE`: once ready for the timed part (following the store's changes, the
    /// sessions listed or read), create the first file and wait for the second to appear: the benchmark starts every
    /// process's timed part at once, so that none of them runs its first calls on a machine the others leave idle.
    let startGate: (ready: String, start: String)?

    init(_ environment: [String: String]) throws {
        func setting(_ name: String) throws -> String {
            guard let value = environment[name], !value.isEmpty else {
                throw SessionKitError(code: .invalidConfiguration, message: "\(name) is not set")
            }
            return value
        }
        func number(_ name: String, default value: Int) throws -> Int {
            guard let text = environment[name], !text.isEmpty else { return value }
            guard let number = Int(text), number >= 0 else {
                throw SessionKitError(code: .invalidConfiguration, message: "\(name) is not a whole number")
            }
            return number
        }
        let keyHex = try setting("LOAD_KEY_HEX")
        guard keyHex.count == 64, let key = Hex.bytes(keyHex.utf8).map({ Data($0) }) else {
            throw SessionKitError(code: .invalidConfiguration, message: "LOAD_KEY_HEX is not 64 hex digits")
        }
        store = try PostgresSessionStore(
            service: try setting("LOAD_SERVICE"),
            configuration: try .init(url: try setting("SESSIONKIT_POSTGRES_URL")),
            keys: try .init(current: (id: "load", key: SymmetricKey(data: key))),
            metrics: storeMetrics
        )
        guard let issuer = URL(string: try setting("LOAD_ISSUER")) else {
            throw SessionKitError(code: .invalidConfiguration, message: "LOAD_ISSUER is not a URL")
        }
        var configuration = try ProviderConfiguration(
            issuer: issuer, clientID: environment["LOAD_CLIENT_ID"] ?? "sessionkit-native")
        configuration.requestTimeout = .seconds(30)
        provider = ProviderClient(configuration: configuration)
        idsFile = try setting("LOAD_IDS_FILE")
        minTTL = TimeInterval(try number("LOAD_MIN_TTL", default: 0))
        rounds = max(1, try number("LOAD_ROUNDS", default: 1))
        concurrency = max(1, try number("LOAD_CONCURRENCY", default: 100))
        retryFor = .seconds(try number("LOAD_RETRY_SECONDS", default: 0))
        watchFor = .seconds(try number("LOAD_WATCH_SECONDS", default: 0))
        create = environment["LOAD_CREATE"] == nil ? nil : try number("LOAD_CREATE", default: 0)
        statementCost =
            environment["LOAD_STATEMENT_COST"] == nil ? nil : try number("LOAD_STATEMENT_COST", default: 0)
        username = environment["LOAD_USERNAME"] ?? "alice@example.com"
        password = environment["LOAD_PASSWORD"] ?? ""
        expired = environment["LOAD_EXPIRED"] == "1"
        floor = environment["LOAD_FLOOR"] == "1"
        holdFile = environment["LOAD_HOLD_FILE"].flatMap { $0.isEmpty ? nil : $0 }
        switch (environment["LOAD_READY_FILE"], environment["LOAD_START_FILE"]) {
        case (let ready?, let start?) where !ready.isEmpty && !start.isEmpty: startGate = (ready, start)
        case (nil, nil): startGate = nil
        default:
            throw SessionKitError(
                code: .invalidConfiguration, message: "LOAD_READY_FILE and LOAD_START_FILE go together; set both")
        }
        let shard = (environment["LOAD_SHARD"] ?? "0/1").split(separator: "/").compactMap { Int($0) }
        guard shard.count == 2, shard[1] > 0, (0..<shard[1]).contains(shard[0]) else {
            throw SessionKitError(code: .invalidConfiguration, message: "LOAD_SHARD is not INDEX/COUNT, such as 0/4")
        }
        (shardIndex, shardCount) = (shard[0], shard[1])
    }
}
