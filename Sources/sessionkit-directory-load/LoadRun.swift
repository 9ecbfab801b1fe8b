import Crypto
import Foundation
import MetricsTestKit
import SessionKit
import SessionKitPostgres
import SessionKitServer
import SessionKitSupport
import Synchronization

/// One instance asking for every listed session's credentials, `rounds` times, and reporting what it saw: a
/// line per session, then `retried N` (the calls that met a retryable error and tried again). With a watch
/// time, it then prints `ready`, keeps asking, and adds `INDEX refused EPOCH_MS` for each session that was
/// refused as signed out meanwhile (a logout elsewhere).
final class LoadRun: Sendable {
    let settings: LoadSettings
    /// Calls that met a retryable error at least once.
    private let retried = Atomic<Int>(0)

    init(settings: LoadSettings) {
        self.settings = settings
    }

    func run() async throws {
        let directory = SessionDirectory(provider: settings.provider, store: settings.store)
        let follower = Task { await directory.follow(settings.store) }
        defer { follower.cancel() }
        // As a server starts taking traffic once it follows the store's changes.
        let listenBy = ContinuousClock.now + .seconds(10)
        while !directory.isFollowingChanges, ContinuousClock.now < listenBy {
            try await Task.sleep(for: .milliseconds(5))
        }
        let ids = try String(contentsOfFile: settings.idsFile, encoding: .utf8)
            .split(separator: "\n").map { try SessionID(validating: String($0)) }
        if settings.floor { return try await floor(ids) }
        let residentBefore = Memory.resident()
        var lines = [String](repeating: "", count: ids.count)
        var latencies: [Duration] = []
        var slowest = (index: 0, latency: Duration.zero)
        var statements = 0
        var commitChecks = 0
        var wall = Duration.zero
        var span = (start: 0.0, end: 0.0)
        var cpu = 0
        // The first round's wall: a cold instance's warm-up, each session read from the store once.
        var firstWall: Duration?
        try await passStartGate()
        for _ in 0..<settings.rounds {
            let before = settings.store.statementCount
            let checksBefore = settings.store.commitCheckCount
            let cpuBefore = Memory.cpuMilliseconds()
            let started = ContinuousClock.now
            span.start = Self.epochMilliseconds()
            latencies = []
            let answers = await round(directory, ids)
            wall = ContinuousClock.now - started
            if firstWall == nil { firstWall = wall }
            span.end = Self.epochMilliseconds()
            cpu = Memory.cpuMilliseconds() - cpuBefore
            statements = settings.store.statementCount - before
            commitChecks = settings.store.commitCheckCount - checksBefore
            slowest = (0, .zero)
            for (index, answer, latency) in answers {
                lines[index] = Self.line(answer)
                latencies.append(latency)
                if latency > slowest.latency { slowest = (index, latency) }
            }
        }
        if let holdFile = settings.holdFile {
            FileHandle.standardOutput.write(Data("held\n".utf8))
            while !FileManager.default.fileExists(atPath: holdFile) { try await Task.sleep(for: .milliseconds(10)) }
            let before = settings.store.statementCount
            let held = await round(directory, ids)
            let errors = held.filter { if case .failure = $0.1 { true } else { false } }.count
            FileHandle.standardError.write(
                Data(
                    ("held round: calls: \(held.count), errors: \(errors), "
                        + "median: \(Self.milliseconds(held.map(\.2), 0.5)) ms, "
                        + "p99: \(Self.milliseconds(held.map(\.2), 0.99)) ms, "
                        + "max: \(Self.milliseconds(held.map(\.2), 1)) ms, "
                        + "statements: \(settings.store.statementCount - before)\n").utf8))
        }
        var refusals: [Int: Int] = [:]
        if settings.watchFor > .zero {
            FileHandle.standardOutput.write(Data("ready\n".utf8))
            refusals = await watch(directory, ids)
        }
        print(lines.enumerated().map { "\($0.offset) \($0.element)" }.joined(separator: "\n"))
        for (index, time) in refusals.sorted(by: { $0.key < $1.key }) { print("\(index) refused \(time)") }
        print("retried \(retried.load(ordering: .relaxed))")
        let summary = [
            "sessions: \(ids.count)", "calls: \(latencies.count)", "median: \(Self.milliseconds(latencies, 0.5)) ms",
            "p99: \(Self.milliseconds(latencies, 0.99)) ms",
            "max: \(Self.milliseconds([slowest.latency], 1)) ms (session \(slowest.index))",
            "wall: \(Self.milliseconds([wall], 1)) ms",
            "first round: \(Self.milliseconds([firstWall ?? wall], 1)) ms",
            Self.spanText(span),
            "cpu: \(cpu) ms", "statements: \(statements)", "of which commit checks: \(commitChecks)",
            "cached: \(directory.cachedCount)", "cache capacity: \(directory.capacity)",
            "resident before: \(residentBefore / 1024) KiB", "resident after: \(Memory.resident() / 1024) KiB",
            "peak resident: \(Memory.peakResident() / 1024) KiB",
            "calls by operation (whole run): \(callsByOperation())",
        ]
        FileHandle.standardError.write(Data("\(summary.joined(separator: ", "))\n".utf8))
    }

    /// Once ready for the timed part, says so and waits for the benchmark's go (``LoadSettings/startGate``).
    private func passStartGate() async throws {
        guard let gate = settings.startGate else { return }
        guard FileManager.default.createFile(atPath: gate.ready, contents: nil) else {
            throw SessionKitError(
                code: .invalidConfiguration, message: "LOAD_READY_FILE \(gate.ready) cannot be created")
        }
        while !FileManager.default.fileExists(atPath: gate.start) { try await Task.sleep(for: .milliseconds(1)) }
    }

    /// Milliseconds since 1970: the clock every process shares, so that the benchmark can time the phase from
    /// the first process's first call to the last one's last answer.
    static func epochMilliseconds() -> Double { Date().timeIntervalSince1970 * 1000 }

    /// The summary's `timed from` field: when the timed part began and ended, in milliseconds since 1970.
    static func spanText(_ span: (start: Double, end: Double)) -> String {
        String(format: "timed from: %.1f to %.1f ms since 1970", span.start, span.end)
    }

    /// The `q` quantile of `durations` in milliseconds, as text.
    static func milliseconds(_ durations: [Duration], _ q: Double) -> String {
        guard !durations.isEmpty else { return "-" }
        let sorted = durations.sorted()
        let value = sorted[min(sorted.count - 1, Int(Double(sorted.count) * q))]
        return String(
            format: "%.3f", Double(value.components.attoseconds) / 1e15 + Double(value.components.seconds) * 1e3)
    }

    /// The provider floor: this shard's sessions read from the store (not timed), then renewed straight at the
    /// provider, `concurrency` at a time, with no store, lease or directory; prints `floor wall` and the count.
    private func floor(_ ids: [SessionID]) async throws {
        let directory = SessionDirectory(provider: settings.provider, store: settings.store)
        var shard: [Credentials] = []
        for (index, id) in ids.enumerated() where index % settings.shardCount == settings.shardIndex {
            if let credentials = try await directory.storedCredentials(for: id) { shard.append(credentials) }
        }
        let provider = settings.provider
        try await passStartGate()
        let cpuBefore = Memory.cpuMilliseconds()
        let started = ContinuousClock.now
        let epochStart = Self.epochMilliseconds()
        let failures = await withTaskGroup(of: Bool.self) { group in
            var next = 0
            var failures = 0
            func add() {
                let credentials = shard[next]
                next += 1
                group.addTask { (try? await provider.renew(credentials)) == nil }
            }
            while next < min(settings.concurrency, shard.count) { add() }
            for await failed in group {
                if failed { failures += 1 }
                if next < shard.count { add() }
            }
            return failures
        }
        let wall = ContinuousClock.now - started
        let span = (start: epochStart, end: Self.epochMilliseconds())
        let cpu = Memory.cpuMilliseconds() - cpuBefore
        FileHandle.standardError.write(
            Data(
                ("floor: grants: \(shard.count), failures: \(failures), floor wall: \(Self.milliseconds([wall], 1)) ms, "
                    + "cpu: \(cpu) ms, \(Self.spanText(span))\n").utf8))
    }

    /// The store's calls over the whole run, by operation, as `name N` pairs; a call may be several statements (a
    /// transaction's are its BEGIN, statements and COMMIT).
    private func callsByOperation() -> String {
        let counts = settings.storeMetrics.timers.map { timer in
            (
                timer.dimensions.first { $0.0 == "operation" }?.1 ?? timer.label, timer.values.count,
                (timer.values.max() ?? 0) / 1_000_000
            )
        }
        return counts.sorted { $0.0 < $1.0 }.map { "\($0.0) \($0.1) (longest \($0.2) ms)" }.joined(separator: " ")
    }

    /// Asks for every session every 10 ms for `watchFor`; returns when each one was first refused as signed
    /// out, in milliseconds since 1970, by its index.
    private func watch(_ directory: SessionDirectory, _ ids: [SessionID]) async -> [Int: Int] {
        var refusals: [Int: Int] = [:]
        let end = ContinuousClock.now + settings.watchFor
        while ContinuousClock.now < end {
            for (index, id) in ids.enumerated() where refusals[index] == nil {
                do {
                    _ = try await directory.credentials(for: id, minTTL: settings.minTTL)
                } catch  where error.code == .signInRequired {
                    refusals[index] = Int(Date().timeIntervalSince1970 * 1000)
                } catch {}
            }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return refusals
    }

    /// What one call got: the first 8 bytes of the access token's SHA-256, in hex, or the error's line.
    ///
    /// The call hashes the token as it gets it (about a microsecond, in the round's wall and CPU; the floor hashes
    /// none) rather than keeping it to the round's end: 100,000 tokens of about 800 bytes each would make the
    /// instance's peak memory grow with the number of users, where the directory's own is bounded by its cache.
    typealias Answer = Result<String, LoadError>

    /// An error's line, as the report prints it.
    struct LoadError: Error {
        let line: String
    }

    /// The report's line for `answer`: `ok` and the token's fingerprint, or the error.
    static func line(_ answer: Answer) -> String {
        switch answer {
        case .success(let fingerprint):
            "ok " + fingerprint
        case .failure(let error):
            error.line
        }
    }

    /// Every session once, at most `concurrency` at a time: `(index, answer, latency)` for each.
    private func round(_ directory: SessionDirectory, _ ids: [SessionID]) async -> [(Int, Answer, Duration)] {
        await withTaskGroup(of: (Int, Answer, Duration).self) { group in
            var results: [(Int, Answer, Duration)] = []
            var next = 0
            func add() {
                let index = next
                next += 1
                group.addTask { await self.call(directory, ids[index], index) }
            }
            while next < min(settings.concurrency, ids.count) { add() }
            for await result in group {
                results.append(result)
                if next < ids.count { add() }
            }
            return results
        }
    }

    /// One session's credentials, retried while the error is retryable and `retryFor` has not passed.
    private func call(_ directory: SessionDirectory, _ id: SessionID, _ index: Int) async -> (Int, Answer, Duration) {
        let started = ContinuousClock.now
        var retrying = false
        while true {
            do {
                let credentials = try await directory.credentials(for: id, minTTL: settings.minTTL)
                let latency = ContinuousClock.now - started
                return (index, .success(String(Hex.sha256(credentials.accessToken.unsafeRawValue).prefix(16))), latency)
            } catch {
                guard error.isRetryable, ContinuousClock.now - started < settings.retryFor else {
                    // A message names what failed and never a secret (the house rule for every error).
                    let line = "error \(error.code): \(error.message)"
                    return (index, .failure(LoadError(line: line)), ContinuousClock.now - started)
                }
                if !retrying {
                    retrying = true
                    retried.add(1, ordering: .relaxed)
                }
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
    }
}

/// The process's resident memory, from Linux's /proc and getrusage.
enum Memory {
    /// Bytes resident now (0 where /proc is missing).
    static func resident() -> Int {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let pages = statm.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// The most bytes ever resident.
    static func peakResident() -> Int {
        var usage = rusage()
        #if os(Linux)
            getrusage(RUSAGE_SELF.rawValue, &usage)
            return usage.ru_maxrss * 1024  // kibibytes on Linux
        #else
            getrusage(RUSAGE_SELF, &usage)
            return usage.ru_maxrss  // bytes on Darwin
        #endif
    }

    /// CPU time this process has used, user and system, in milliseconds.
    static func cpuMilliseconds() -> Int {
        var usage = rusage()
        #if os(Linux)
            getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
            getrusage(RUSAGE_SELF, &usage)
        #endif
        let user = usage.ru_utime.tv_sec * 1000 + Int(usage.ru_utime.tv_usec) / 1000
        return user + usage.ru_stime.tv_sec * 1000 + Int(usage.ru_stime.tv_usec) / 1000
    }
}
