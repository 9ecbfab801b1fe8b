import Foundation
import PostgresNIO
import SessionKitPostgres

/// `LOAD_STATEMENT_COST=N`: what one statement costs this process, through the store's call path and through
/// PostgresNIO alone, `LOAD_CONCURRENCY` at a time. Each pass sends N statements and prints the process's CPU per
/// statement and the wall time; the passes alternate (PostgresNIO, store, PostgresNIO, store), so a machine whose
/// speed drifts moves both alike.
///
/// - The store: `data(forKey:)` of an item that is not there, a prepared statement that finds no row, with all
///   the store adds (the call's deadline and its task, the pool's lease, metrics, a tracing span, error mapping).
/// - PostgresNIO alone: `SELECT 1` through a `PostgresClient` with the store's settings (the same TLS), no more.
///
/// The difference is the store's own cost per statement; PostgresNIO's own is what any statement costs.
struct StatementCost {
    let settings: LoadSettings

    func run(count: Int) async throws {
        let client = PostgresClient(configuration: try settings.store.configuration.clientConfiguration())
        let pool = Task { await client.run() }
        defer { pool.cancel() }
        let workers = min(settings.concurrency, max(1, count))
        let store = settings.store
        let alone: @Sendable (Int) async throws -> Void = { _ in _ = try await client.query("SELECT 1").collect() }
        let throughStore: @Sendable (Int) async throws -> Void = { index in
            _ = try await store.data(forKey: "statement-cost-\(index)")
        }
        let passes = [("PostgresNIO alone (SELECT 1)", alone), ("the store (data(forKey:), no row)", throughStore)]
        // Both pools open their connections before any pass is timed.
        for (_, statement) in passes + passes { try await pass(count: workers * 4, workers: workers, statement) }
        for round in 1...2 {
            for (name, statement) in passes {
                let cpuBefore = Memory.cpuMilliseconds()
                let started = ContinuousClock.now
                try await pass(count: count, workers: workers, statement)
                let wall = ContinuousClock.now - started
                let cpu = Memory.cpuMilliseconds() - cpuBefore
                print(
                    "round \(round), \(name): \(count) statements, \(workers) at a time: cpu \(cpu) ms, "
                        + "\(String(format: "%.1f", Double(cpu) * 1000 / Double(count))) µs per statement; "
                        + "wall \(String(format: "%.0f", wall.milliseconds)) ms")
            }
        }
    }

    /// Runs `statement` `count` times, `workers` at a time.
    private func pass(count: Int, workers: Int, _ statement: @escaping @Sendable (Int) async throws -> Void)
        async throws
    {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<workers {
                group.addTask {
                    for index in stride(from: worker, to: count, by: workers) { try await statement(index) }
                }
            }
            try await group.waitForAll()
        }
    }
}

extension Duration {
    /// The duration in milliseconds, with fractions.
    fileprivate var milliseconds: Double {
        Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
    }
}
