// Issue 8, item 2: `credentials()` on a valid session, in process, against reading and decrypting the
// store on every call (what Auth0.swift's CredentialsManager does). Run in release:
//
//     swift build --package-path Benchmarks -c release && Benchmarks/.build/release/credentials-bench
import BenchmarkSupport
import Foundation
import SecureStore
import SessionKit

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sessionkit-bench-\(UUID().uuidString)")
try FileManager.default.createDirectory(
    at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
defer { try? FileManager.default.removeItem(at: folder) }

func makeStore(_ folder: URL) throws -> EncryptedFileStore {
    try EncryptedFileStore(
        service: "sessionkit-bench",
        configuration: .init(folder: folder.path, keySource: .keyFile(atPath: folder.path + "/store.key"))
    )
}

/// A token-sized random string (a real access token is a JWT of 700–1,000 bytes).
func fakeToken(_ length: Int) -> Secret {
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    return Secret(String((0..<length).map { _ in alphabet.randomElement()! }))
}

let credentials = Credentials(
    accessToken: fakeToken(900), idToken: fakeToken(1_000), refreshToken: fakeToken(64),
    expiresAt: Date().addingTimeInterval(3_600), scope: "openid profile email offline_access"
)
let configuration = try ProviderConfiguration(issuer: URL(string: "https://bench.invalid/")!, clientID: "bench")
let store = try makeStore(folder)
let session = SessionManager(provider: ProviderClient(configuration: configuration), store: store)
try await session.store(credentials)
// The baseline's item: the credentials as JSON, read, decrypted and decoded on every call.
let plainKey = "bench.credentials"
try store.setData(try JSONEncoder().encode(credentials), forKey: plainKey)

Report.header("credentials() on a valid session (issue 8, item 2)")
let samples = 200
let fast = try await measure(samples: samples, batch: 10_000, warmup: 1_000) {
    blackHole(try await session.credentials(minTTL: 60))
}
Report.row("SessionManager.credentials(minTTL: 60)", fast, samples: samples)

let perCallStore = try await measure(samples: 100, batch: 20, warmup: 20) {
    guard let data = try store.data(forKey: plainKey) else { fatalError("the baseline item is missing") }
    let decoded = try JSONDecoder().decode(Credentials.self, from: data)
    precondition(decoded.isValid(minTTL: 60))
    blackHole(decoded)
}
Report.row("read + decrypt + decode the store each call", perCallStore, samples: 100)

let coldManager = try await measure(samples: 100, batch: 20, warmup: 20) {
    let relaunched = SessionManager(
        provider: ProviderClient(configuration: configuration), store: try makeStore(folder))
    blackHole(try relaunched.localCredentials(minTTL: 60))
}
Report.row("new manager + store, localCredentials()", coldManager, samples: 100)

// Throughput: one task per core, each calling in a loop for a fixed count.
let tasks = ProcessInfo.processInfo.activeProcessorCount
let callsPerTask = 2_000_000
let clock = ContinuousClock()
let started = clock.now
try await withThrowingTaskGroup(of: Void.self) { group in
    for _ in 0..<tasks {
        group.addTask { [session] in
            for _ in 0..<callsPerTask { blackHole(try await session.credentials(minTTL: 60)) }
        }
    }
    try await group.waitForAll()
}
let elapsed = nanoseconds(started.duration(to: clock.now)) / 1e9
let throughput = Double(tasks * callsPerTask) / elapsed
let single = 1e9 / fast.median
print(
    "throughput: \(String(format: "%.2f", throughput / 1e6)) M calls/s with \(tasks) tasks "
        + "(\(String(format: "%.2f", single / 1e6)) M calls/s from one task, from the median)")

let speedup = perCallStore.median / fast.median
print("ratio store-per-call / credentials(): \(Report.ratio(speedup))")
print("target: median <= 1 µs: \(Report.verdict(fast.median <= 1_000)) (\(Report.time(fast.median)))")
print("target: >= 50× faster than reading the store each call: \(Report.verdict(speedup >= 50))")
