// A command-line tool signs in with the browser and a loopback redirect listener (GettingStarted.md, step 1).

// snippet.hide
import Foundation
import SecureStore
import SessionKit
// snippet.show
import SessionKitLoopback

// snippet.hide
let provider = ProviderClient(
    configuration: try ProviderConfiguration(
        issuer: URL(string: "https://example.eu.auth0.com/")!, clientID: "YOUR_CLIENT_ID"))
let session = SessionManager(provider: provider, store: MemoryStore(service: "com.example.app"))
// snippet.show
let listener = try await LoopbackRedirectListener.start()  // or start(redirectURI: LoopbackRedirectURI(...))
let request = try await provider.authorizationRequest(redirectURI: listener.redirectURI)
let start = try listener.startURL(for: request)  // a short link: no state in `ps`
Task { if await !SystemBrowser.open(start) { print("Open \(start) in a browser") } }  // $BROWSER, xdg-open
let credentials = try await listener.signIn(request, with: provider, timeout: .seconds(300)) {
    try await session.store($0)  // before the page says "Signed in as …"
}
