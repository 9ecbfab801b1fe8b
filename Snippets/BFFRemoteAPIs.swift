// A back end for front ends that forwards to other APIs, with DPoP-bound tokens (SessionKitBFF's pages).

// snippet.hide
import Crypto
import Foundation
import SessionKit
import SessionKitBFF
import SessionKitPostgres

let appURL = URL(string: "https://app.example.com")!
let apiURL = URL(string: "https://api.example.com/")!
let paymentsURL = URL(string: "https://payments.example.com/v1/")!
var providerConfiguration = try ProviderConfiguration(
    issuer: URL(string: "https://example.eu.auth0.com/")!, clientID: "YOUR_CLIENT_ID",
    clientSecret: Secret("YOUR_CLIENT_SECRET"))
let store = try PostgresSessionStore(
    service: "com.example.web", configuration: .init(url: "postgres://app@localhost/sessions"),
    keys: .init(current: (id: "2026-11", key: SymmetricKey(size: .bits256))))
// snippet.show
var configuration = try BackendForFrontend.Configuration(publicURL: appURL, upstream: apiURL)  // /api/** → apiURL
configuration.remoteAPIs = [  // /payments/** → the payments API, with a token for its audience
    try .init(path: "/payments", upstream: paymentsURL, audience: "https://payments.example.com/", scope: "pay")
]
providerConfiguration.dpop = try await DPoPKey.stored(in: store, forKey: "bff.dpop-key")  // one key, every instance
