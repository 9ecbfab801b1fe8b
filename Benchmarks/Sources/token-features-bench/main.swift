// Issue 25's benchmarks: the cost of a DPoP proof per request against raw swift-crypto P-256 signing, measured in
// the same run, and `credentials(audience:)` from memory against the session's own `credentials()`. Run in release:
//
//     swift build --package-path Benchmarks -c release && Benchmarks/.build/release/token-features-bench
import AuthEmulator
import BenchmarkSupport
import Crypto
import Foundation
import Logging
import SecureStore
import SessionKit

var quiet = Logger(label: "token-features-bench")
quiet.logLevel = .error
var emulatorConfiguration = AuthEmulator.Configuration()
emulatorConfiguration.testControlsEnabled = true
let emulator = try await AuthEmulator.start(configuration: emulatorConfiguration, logger: quiet)
let key = DPoPKey.generate()
var configuration = try ProviderConfiguration(issuer: emulator.issuer, clientID: AuthEmulator.Client.nativeID)
configuration.dpop = key
let provider = ProviderClient(configuration: configuration)
let session = SessionManager(provider: provider, store: MemoryStore(service: "bench"))
try await session.store(
    try await provider.signIn(username: AuthEmulator.User.aliceEmail, password: Secret(AuthEmulator.User.alicePassword))
)
let own = try await session.credentials(minTTL: 60)
let payments = try await session.credentials(audience: AuthEmulator.API.paymentsIdentifier, minTTL: 60)
precondition(own.isDPoPBound && payments.isDPoPBound, "the emulator binds both tokens to the key")
let url = URL(string: "https://api.example.com/orders/7?sort=new")!

Report.header("DPoP proof per request (issue 25)")
let raw = P256.Signing.PrivateKey()
let input = Data(repeating: 0x61, count: 420)  // a proof's header and claims, base64url-encoded, are about this long
let signing = try await measure(samples: 100, batch: 200, warmup: 200) { blackHole(try raw.signature(for: input)) }
Report.row("swift-crypto P-256 signature (the floor)", signing, samples: 100)
let bare = try await measure(samples: 100, batch: 200, warmup: 200) {
    blackHole(try key.proof(method: "GET", url: url, accessToken: own.accessToken))
}
Report.row("DPoPKey.proof(method:url:accessToken:)", bare, samples: 100)
let headers = try await measure(samples: 100, batch: 200, warmup: 200) {
    blackHole(try await provider.authorizationHeaders(for: own, method: "GET", url: url))
}
Report.row("ProviderClient.authorizationHeaders(for:method:url:)", headers, samples: 100)
print(
    "proof / raw signature: \(Report.ratio(bare.median / signing.median)); headers / raw: "
        + Report.ratio(headers.median / signing.median))

Report.header("credentials(audience:) from memory (issue 25)")
let session1 = try await measure(samples: 200, batch: 10_000, warmup: 1_000) {
    blackHole(try await session.credentials(minTTL: 60))
}
Report.row("credentials(minTTL: 60), the session's own", session1, samples: 200)
let api1 = try await measure(samples: 200, batch: 10_000, warmup: 1_000) {
    blackHole(try await session.credentials(audience: AuthEmulator.API.paymentsIdentifier, minTTL: 60))
}
Report.row("credentials(audience: payments, minTTL: 60)", api1, samples: 200)
print("per-audience / own: \(Report.ratio(api1.median / session1.median))")
let requests = try await emulator.controls.requestCounts()[.token]
print("token requests during the measurements: \(requests - 2) (must be 0)")
await emulator.stop()
