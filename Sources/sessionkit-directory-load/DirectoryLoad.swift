import Crypto
import Foundation
import NIOCore
import NIOPosix
import SecureStore
import SessionKit
import SessionKitPostgres
import SessionKitServer

/// `sessionkit-directory-load`: one server instance's worth of `SessionDirectory` in its own process, for the
/// multi-process tests and benchmarks of SessionKitServer. Not a product: it exists so that tests and
/// `Benchmarks/server.sh` can run several real processes against one PostgreSQL and one provider, and kill
/// them.
///
/// By default it asks for every listed session's credentials at once (at most `LOAD_CONCURRENCY` in flight),
/// then prints one line per session, `INDEX ok DIGEST` (the first 16 hex digits of the access token's
/// SHA-256, never the token) or `INDEX error CODE`, and a summary on stderr: calls, median and 99th
/// percentile, SQL statements sent, peak resident memory. With `LOAD_CREATE=N` it instead signs in `N`
/// sessions and writes their ids to `LOAD_IDS_FILE`.
///
/// Settings, from the environment: `SESSIONKIT_POSTGRES_URL`, `LOAD_SERVICE`, `LOAD_ISSUER`,
/// `LOAD_CLIENT_ID`, `LOAD_KEY_HEX` (the 256-bit sealing key every instance shares, in hex), `LOAD_IDS_FILE`
/// (one session id per line), `LOAD_MIN_TTL` (seconds, default 0), `LOAD_ROUNDS` (default 1; the summary
/// covers the last round), `LOAD_CONCURRENCY` (default 100), `LOAD_RETRY_SECONDS` (retry a retryable error
/// for up to this long, as a client retries a 503; default 0), `LOAD_WATCH_SECONDS` (after the rounds, keep
/// asking for this long and report when each session was refused as signed out), and for `LOAD_CREATE`: `LOAD_USERNAME`,
/// `LOAD_PASSWORD`, `LOAD_EXPIRED=1` (store the tokens as already expired, for a renewal storm). `LOAD_FLOOR=1`
/// with `LOAD_SHARD=I/N` renews this instance's share of the sessions straight at the provider instead (the
/// storm's provider floor); `LOAD_HOLD_FILE` adds a round after the others, once that file exists (the benchmark
/// freezes PostgreSQL first). `LOAD_NIO_EXECUTOR=1` runs Swift's tasks on NIO's event loops; `LOAD_EVENT_LOOPS=N`
/// gives NIO's shared group N threads. `LOAD_STATEMENT_COST=N` times N statements through the store and through
/// PostgresNIO alone (``StatementCost``). Before its first call an instance waits until it follows the store's changes, as
/// a server takes traffic only then; with `LOAD_READY_FILE` and `LOAD_START_FILE` it then creates the first file and
/// waits for the second (`Benchmarks/gate.sh` starts a phase's processes together). The summary says when the timed
/// part began and ended (`timed from: A to B ms since 1970`).
@main
struct DirectoryLoad {
    static func main() async {
        // `LOAD_EVENT_LOOPS=N`: NIO's shared event loop group (PostgresNIO's and AsyncHTTPClient's) gets N threads
        // instead of one per core, as for several instances sharing a machine's cores. Before the group is made.
        if let loops = ProcessInfo.processInfo.environment["LOAD_EVENT_LOOPS"].flatMap({ Int($0) }), loops > 0 {
            NIOSingletons.groupLoopCountSuggestion = loops
        }
        // `LOAD_NIO_EXECUTOR=1`: Swift's tasks run on NIO's event loops, where PostgresNIO and AsyncHTTPClient do
        // their I/O, instead of hopping to the cooperative pool and back at every await (Vapor's template offers the
        // same). Nothing on SessionKit's server path blocks a thread, which this needs. Before any other task.
        if ProcessInfo.processInfo.environment["LOAD_NIO_EXECUTOR"] == "1",
            !NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        {
            FileHandle.standardError.write(Data("sessionkit-directory-load: NIO could not become the executor\n".utf8))
            exit(1)
        }
        do {
            let settings = try LoadSettings(ProcessInfo.processInfo.environment)
            // The store's connection pool runs beside the work, and stops with it.
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await settings.store.run() }
                if let count = settings.statementCost {
                    try await StatementCost(settings: settings).run(count: count)
                } else if let count = settings.create {
                    try await FleetCreation(settings: settings).run(count: count)
                } else {
                    try await LoadRun(settings: settings).run()
                }
                group.cancelAll()
            }
        } catch {
            FileHandle.standardError.write(Data("sessionkit-directory-load: \(error)\n".utf8))
            exit(1)
        }
    }
}
