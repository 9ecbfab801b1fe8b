import Crypto
import Foundation
import SecureStore
import SessionKit
import SessionKitServer

/// `sessionkit-directory-load`: one server instance's worth of `SessionDirectory` in its own process, for the
/// multi-process tests and benchmarks of issue 14. Not a product: it exists so that tests can run several
/// real processes against one PostgreSQL and one provider, and kill them.
///
/// It asks for every listed session's credentials at once (at most `LOAD_CONCURRENCY` in flight), then
/// prints one line per session, `INDEX ok DIGEST` (the first 16 hex digits of the access token's SHA-256,
/// never the token) or `INDEX error CODE`, and a summary with the median and 99th percentile on stderr.
///
/// Settings, from the environment: `SESSIONKIT_POSTGRES_URL`, `LOAD_SERVICE`, `LOAD_ISSUER`,
/// `LOAD_CLIENT_ID`, `LOAD_KEY_HEX` (the 256-bit sealing key every instance shares, in hex), `LOAD_IDS_FILE`
/// (one session id per line), `LOAD_MIN_TTL` (seconds, default 0), `LOAD_ROUNDS` (default 1),
/// `LOAD_CONCURRENCY` (default 100).
@main
struct DirectoryLoad {
    static func main() async {
        do {
            try await run()
        } catch {
            FileHandle.standardError.write(Data("sessionkit-directory-load: \(error)\n".utf8))
            exit(1)
        }
    }

    static func setting(_ name: String) throws -> String {
        guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else {
            throw SessionKitError(code: .invalidConfiguration, message: "\(name) is not set")
        }
        return value
    }

    static func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let keyHex = try setting("LOAD_KEY_HEX")
        guard keyHex.count == 64, let key = Data(hex: keyHex) else {
            throw SessionKitError(code: .invalidConfiguration, message: "LOAD_KEY_HEX is not 64 hex digits")
        }
        let store = try PostgresSessionStore(
            service: try setting("LOAD_SERVICE"),
            configuration: try .init(url: try setting("SESSIONKIT_POSTGRES_URL")),
            keys: try .init(current: (id: "load", key: SymmetricKey(data: key)))
        )
        guard let issuer = URL(string: try setting("LOAD_ISSUER")) else {
            throw SessionKitError(code: .invalidConfiguration, message: "LOAD_ISSUER is not a URL")
        }
        let provider = ProviderClient(
            configuration: try ProviderConfiguration(
                issuer: issuer, clientID: environment["LOAD_CLIENT_ID"] ?? "sessionkit-native"))
        let directory = SessionDirectory(provider: provider, store: store)
        let follower = Task { await directory.follow(store) }
        defer { follower.cancel() }
        let ids = try String(contentsOfFile: try setting("LOAD_IDS_FILE"), encoding: .utf8)
            .split(separator: "\n").map { try SessionID(validating: String($0)) }
        let minTTL = TimeInterval(environment["LOAD_MIN_TTL"] ?? "") ?? 0
        let rounds = max(1, Int(environment["LOAD_ROUNDS"] ?? "") ?? 1)
        let concurrency = max(1, Int(environment["LOAD_CONCURRENCY"] ?? "") ?? 100)

        var lines = [String](repeating: "", count: ids.count)
        var latencies: [Duration] = []
        for _ in 0..<rounds {
            let results = await withTaskGroup(of: (Int, String, Duration).self) { group in
                var results: [(Int, String, Duration)] = []
                var next = 0
                func add() {
                    let index = next
                    next += 1
                    group.addTask {
                        let started = ContinuousClock.now
                        do {
                            let credentials = try await directory.credentials(for: ids[index], minTTL: minTTL)
                            let digest = SHA256.hash(data: Data(credentials.accessToken.unsafeRawValue.utf8))
                                .prefix(8).map { String(format: "%02x", $0) }.joined()
                            return (index, "ok \(digest)", ContinuousClock.now - started)
                        } catch {
                            let code = (error as? SessionKitError).map { "\($0.code)" } ?? "\(type(of: error))"
                            return (index, "error \(code)", ContinuousClock.now - started)
                        }
                    }
                }
                while next < min(concurrency, ids.count) { add() }
                for await result in group {
                    results.append(result)
                    if next < ids.count { add() }
                }
                return results
            }
            for (index, line, latency) in results {
                lines[index] = line
                latencies.append(latency)
            }
        }
        print(lines.enumerated().map { "\($0.offset) \($0.element)" }.joined(separator: "\n"))
        latencies.sort()
        func percentile(_ q: Double) -> Double {
            guard !latencies.isEmpty else { return 0 }
            let value = latencies[min(latencies.count - 1, Int(Double(latencies.count) * q))]
            return Double(value.components.seconds) * 1e3 + Double(value.components.attoseconds) / 1e15
        }
        FileHandle.standardError.write(
            Data(
                "sessions: \(ids.count), calls: \(latencies.count), median: \(percentile(0.5)) ms, p99: \(percentile(0.99)) ms\n"
                    .utf8))
    }
}

extension Data {
    /// Bytes from hexadecimal text, or `nil` when it is not.
    init?(hex: String) {
        var bytes: [UInt8] = []
        var iterator = hex.utf8.makeIterator()
        while let high = iterator.next() {
            guard let low = iterator.next(), let h = Self.nibble(high), let l = Self.nibble(low) else { return nil }
            bytes.append(h << 4 | l)
        }
        self.init(bytes)
    }

    private static func nibble(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
