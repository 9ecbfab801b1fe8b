// Issue 23: a SessionDirectory whose sessions outnumber its cache. Every call for a session not in memory reads the
// store and admits the session, pushing the least recently used out: how long calls take, and the longest any
// one waits (every call of the instance passes through the cache's lock). The store is in memory and the tokens
// valid, so nothing but the directory is timed. Run in release:
//
//     swift build --package-path Benchmarks -c release --product directory-churn
//     Benchmarks/.build/release/directory-churn [sessions] [capacity] [calls] [tasks]
import BenchmarkSupport
import Foundation
import SecureStore
import SessionKit
import SessionKitServer

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let sessions = arguments.count > 0 ? arguments[0] : 100_000
let capacity = arguments.count > 1 ? arguments[1] : 10_000
let calls = arguments.count > 2 ? arguments[2] : 400_000
let tasks = arguments.count > 3 ? arguments[3] : 8

let configuration = try ProviderConfiguration(issuer: URL(string: "https://bench.invalid/")!, clientID: "bench")
let provider = ProviderClient(configuration: configuration)
let store = MemoryStore(service: "bench.churn")
let credentials = Credentials(
    accessToken: Secret(String(repeating: "a", count: 900)), idToken: nil,
    refreshToken: Secret(String(repeating: "r", count: 64)), expiresAt: Date().addingTimeInterval(3_600),
    scope: "openid offline_access")
let creator = SessionDirectory(provider: provider, store: store, capacity: 1)
var ids: [SessionID] = []
for _ in 0..<sessions { ids.append(try await creator.create(credentials)) }
let all = ids

/// Runs `calls` calls for sessions drawn at random from the first `span` ids, `tasks` at a time; returns each
/// call's time in nanoseconds and the whole run's.
func run(_ directory: SessionDirectory, span: Int) async throws -> (samples: [Double], seconds: Double) {
    let clock = ContinuousClock()
    let started = clock.now
    let samples = try await withThrowingTaskGroup(of: [Double].self) { group in
        for _ in 0..<tasks {
            group.addTask {
                var generator = SystemRandomNumberGenerator()
                var times: [Double] = []
                times.reserveCapacity(calls / tasks)
                for _ in 0..<(calls / tasks) {
                    let id = all[Int.random(in: 0..<span, using: &generator)]
                    let before = clock.now
                    blackHole(try await directory.credentials(for: id, minTTL: 60))
                    times.append(nanoseconds(before.duration(to: clock.now)))
                }
                return times
            }
        }
        return try await group.reduce(into: []) { $0 += $1 }
    }
    return (samples, nanoseconds(started.duration(to: clock.now)) / 1e9)
}

Report.header(
    "SessionDirectory: \(calls) calls by \(tasks) tasks over \(sessions) sessions, capacity \(capacity) (issue 23)")
for (name, span) in [("every session cached", min(capacity, sessions)), ("sessions outnumber the cache", sessions)] {
    let directory = SessionDirectory(provider: provider, store: store, capacity: capacity)
    _ = try await run(directory, span: span)  // warm-up: fills the cache
    let (samples, seconds) = try await run(directory, span: span)
    let stats = Stats(samples)
    print(
        "\(name): \(String(format: "%.0f", Double(samples.count) / seconds)) calls/s; median "
            + "\(Report.time(stats.median)), p99 \(Report.time(stats.p99)), p99.9 "
            + "\(Report.time(stats.percentile(0.999))), max \(Report.time(stats.max)); cached \(directory.cachedCount)")
}
