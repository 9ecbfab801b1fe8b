// Issue 8, item 3: a refresh storm. 10,000 concurrent `credentials()` calls on an expired session against
// the live emulator (over loopback): exactly one token request, and every caller's wait against one
// refresh round trip. Run in release:
//
//     swift build --package-path Benchmarks -c release && Benchmarks/.build/release/refresh-storm [CALLERS [LATENCY_MS]]
//
// LATENCY_MS adds that delay to every token-endpoint answer (the emulator's latency fault), to see the same
// storm with a round trip like a real provider's instead of a loopback one.
import AuthEmulator
import BenchmarkSupport
import Foundation
import Logging
import SecureStore
import SessionKit

let arguments = Array(CommandLine.arguments.dropFirst())
let callers = arguments.first.flatMap { Int($0) } ?? 10_000
let latency = arguments.dropFirst().first.flatMap { Double($0) }.map { $0 / 1000 } ?? 0
let rounds = 5
var emulatorConfiguration = AuthEmulator.Configuration()
emulatorConfiguration.testControlsEnabled = true
var quiet = Logger(label: "refresh-storm")
quiet.logLevel = .error
let emulator = try await AuthEmulator.start(configuration: emulatorConfiguration, logger: quiet)
let configuration = try ProviderConfiguration(
    issuer: emulator.issuer, clientID: AuthEmulator.Client.nativeID, scope: ProviderConfiguration.defaultScope)
let provider = ProviderClient(configuration: configuration)
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sessionkit-storm-\(UUID().uuidString)")
try FileManager.default.createDirectory(
    at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
let store = try EncryptedFileStore(
    service: "sessionkit-storm",
    configuration: .init(folder: folder.path, keySource: .keyFile(atPath: folder.path + "/store.key"))
)

Report.header(
    "refresh storm: \(callers) concurrent credentials() on an expired session (issue 8, item 3)"
        + (latency > 0 ? ", token endpoint delayed by \(Int(latency * 1000)) ms" : ""))
if latency > 0 { try await emulator.controls.inject(.latency(latency), into: .token) }
var current = try await provider.signIn(
    username: AuthEmulator.User.aliceEmail, password: Secret(AuthEmulator.User.alicePassword))

// One refresh round trip, as a single caller sees it: request, response, ID-token validation.
let clock = ContinuousClock()
var roundTrips: [Double] = []
for index in 0..<23 {
    let start = clock.now
    current = try await provider.renew(current)
    if index >= 3 { roundTrips.append(nanoseconds(start.duration(to: clock.now))) }
}
let roundTrip = Stats(roundTrips)
Report.row("one refresh round trip (provider.renew)", roundTrip, samples: roundTrips.count)

var allRequestsOne = true
var ratios: [Double] = []
for round in 1...rounds {
    var expired = current
    expired.expiresAt = Date().addingTimeInterval(-1)
    let session = SessionManager(provider: provider, store: store, account: "round-\(round)")
    try await session.store(expired)
    try await emulator.controls.resetRequestCounts()
    let waits = try await withThrowingTaskGroup(of: (Double, Credentials).self) { group in
        for _ in 0..<callers {
            group.addTask {
                let start = ContinuousClock.now
                let credentials = try await session.credentials(minTTL: 30)
                return (nanoseconds(start.duration(to: .now)), credentials)
            }
        }
        var waits: [Double] = []
        var tokens = Set<String>()
        for try await (wait, credentials) in group {
            waits.append(wait)
            tokens.insert(credentials.accessToken.unsafeRawValue)
        }
        precondition(tokens.count == 1, "every caller must get the one renewal's result")
        return Stats(waits)
    }
    let requests = try await emulator.controls.requestCounts()[.token]
    allRequestsOne = allRequestsOne && requests == 1
    ratios.append(waits.p99 / roundTrip.median)
    Report.row("round \(round): wait of \(callers) callers", waits, samples: callers)
    print(
        "  token requests: \(requests); p99 wait / round trip: \(Report.ratio(waits.p99 / roundTrip.median)); "
            + "max / round trip: \(Report.ratio(waits.max / roundTrip.median))")
    current = try await session.credentials()
}
await emulator.stop()
try? FileManager.default.removeItem(at: folder)

let medianRatio = Stats(ratios).median
print("target: exactly one token request per storm: \(Report.verdict(allRequestsOne))")
print(
    "target: p99 wait <= 1.2× one round trip: \(Report.verdict(medianRatio <= 1.2)) "
        + "(median over \(rounds) rounds: \(Report.ratio(medianRatio)))")
