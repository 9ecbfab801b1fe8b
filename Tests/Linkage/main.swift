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

// `JSONValue` is declared in SessionKitSupport, which SessionKit re-exports: an app that imports SessionKit alone
// names it (also as `SessionKit.JSONValue`), its cases and its members as it did when SessionKit declared it.
let claims: [String: SessionKit.JSONValue] = ["plan": "pro", "seats": 3]
guard case .string(let plan)? = claims["plan"], claims.member("seats")?.intValue == 3 else {
    fatalError("JSONValue is not what an app saw before")
}
print("plan: \(plan), \(String(decoding: try JSONValue.object(claims).jsonData(), as: UTF8.self))")
