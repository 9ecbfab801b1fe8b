// An app-like program that depends on the SessionKit product alone, as an iOS app does: scripts/linkage-check.sh
// builds it without the AsyncHTTPClientOnLinux trait (the configuration of Apple platforms, where the core sends
// its requests with URLSession) and checks with nm that no SwiftNIO or AsyncHTTPClient symbol is in it.
import Foundation
import SecureStore
import SessionKit

let store = MemoryStore(service: "linkage-probe")
let configuration = try ProviderConfiguration(
    issuer: URL(string: "https://example.invalid/")!, clientID: "linkage-probe")
let session = SessionManager(provider: ProviderClient(configuration: configuration), store: store)
print("signed in: \(try await session.hasSession())")
