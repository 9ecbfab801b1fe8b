// Tokens for several APIs, DPoP-bound tokens, step-up, pushed and backchannel sign-ins (TokenFeatures.md, one slice per block).

// snippet.hide
import Foundation
import SecureStore
import SessionKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

let issuer = URL(string: "https://example.eu.auth0.com/")!
let clientID = "YOUR_CLIENT_ID"
let store = MemoryStore(service: "com.example.app.session")
let url = URL(string: "https://api.example.com/orders")!
let callback = URL(string: "com.example.app://callback")!
// snippet.show
// snippet.dpop
var configuration = try ProviderConfiguration(issuer: issuer, clientID: clientID)
configuration.dpop = try DPoPKey.stored(in: store)  // P-256, made on first use, kept beside the session
let provider = ProviderClient(configuration: configuration)
let session = SessionManager(provider: provider, store: store)

// An API request: Authorization: DPoP <token>, and a proof for this method and URL.
let credentials = try await session.credentials(minTTL: 60)
var request = URLRequest(url: url)
for (name, value) in try await provider.authorizationHeaders(for: credentials, method: "GET", url: url) {
    request.setValue(value, forHTTPHeaderField: name)
}
let (data, response) = try await URLSession.shared.data(for: request)
if let http = response as? HTTPURLResponse, http.statusCode == 401 {
    let answer = HTTPResponse(status: 401, headers: http.allHeaderFields.map { ("\($0.key)", "\($0.value)") })
    if provider.learnDPoPNonce(from: answer, for: url) {
        // Send the request once more, with new headers.
    }
}
// snippet.end

// snippet.hide
func pushedSignIn() async throws {
    // snippet.show
    // snippet.par
    var pushing = try ProviderConfiguration(issuer: issuer, clientID: clientID)
    pushing.pushedAuthorization = .always  // the default, .whenRequired, pushes when discovery requires it
    let request = try await ProviderClient(configuration: pushing).authorizationRequest(redirectURI: callback)
    // request.url is <authorization endpoint>?client_id=...&request_uri=urn:ietf:params:oauth:request_uri:...
    // snippet.hide
    _ = request
}

func backchannelSignIn(secret: String) async throws {
    // snippet.show
    // snippet.ciba
    let backend = ProviderClient(
        configuration: try ProviderConfiguration(issuer: issuer, clientID: clientID, clientSecret: Secret(secret)))
    let request = try await backend.backchannelSignIn(loginHint: "alice@example.com", bindingMessage: "Deploy 42")
    print("Approve the sign-in on your device; it shows \(request.bindingMessage ?? "")")
    let approved = try await backend.pollBackchannelSignIn(request)
    try await SessionManager(provider: backend, store: store).store(approved)
    // snippet.hide
}

func backchannelPingSignIn(backend: ProviderClient) async throws {
    // snippet.show
    // snippet.ciba-ping
    let pings = BackchannelPingReceiver()  // one for the app, shared with its HTTP server

    // The server's route for the client's backchannel_client_notification_endpoint (POST):
    @Sendable func notification(authorization: String?, body: [UInt8]) -> Int {
        pings.receive(authorization: authorization, body: body)  // 204, 401 or 400, sent with an empty body
    }

    let request = try await backend.backchannelSignIn(loginHint: "alice@example.com", pingReceiver: pings)
    let approved = try await backend.pollBackchannelSignIn(request)  // at the ping; or polled every interval
    // snippet.hide
    _ = (notification, approved)
}

func severalAPIs() async throws {
    // snippet.show
    // snippet.audiences
    let own = try await session.credentials(minTTL: 60)  // the configured audience
    let payments = try await session.credentials(audience: "https://payments.example.com/", scope: "pay")
    // snippet.hide
    _ = (own, payments)
}

func stepUp() async throws {
    // snippet.show
    // snippet.step-up
    do {
        _ = try await session.credentials(minTTL: 60)
    } catch {
        guard error.code == .stepUpRequired else { throw error }
        let request = try await provider.authorizationRequest(
            redirectURI: callback, stepUp: error.stepUp ?? StepUpChallenge())
        // Sign in with `request` (ASWebAuthenticationSession, the loopback listener) and store the result.
        // snippet.hide
        _ = request
        // snippet.show
    }
    // An API's challenge: StepUpChallenge(wwwAuthenticate: response.value(forHTTPHeaderField: "WWW-Authenticate")!)
    // snippet.hide
}

func openWebApp(session: SessionManager) async throws {
    // snippet.show
    // snippet.session-transfer
    let transfer = try await session.sessionTransferToken()
    let signedIn = transfer.appended(to: URL(string: "https://app.example.com/auth/login")!)
    // open signedIn in the browser at once: the token works once, for about a minute
    // snippet.hide
    _ = signedIn
}
