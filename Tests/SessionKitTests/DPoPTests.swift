import AuthEmulator
import Foundation
import SecureStore
import SessionKit
import SessionKitTesting
import Testing

/// Issue 25: DPoP-bound tokens (RFC 9449) against the live emulator, which binds tokens to the proof's key
/// (`cnf.jkt`, `token_type` DPoP), binds a public client's refresh tokens to it, and checks every proof.
@Suite("DPoP: tokens bound to a key that never leaves the device")
struct DPoPTests {
    /// A provider and a session for the native client with a DPoP key kept in a file store in `folder`.
    static func session(_ emulator: AuthEmulator, folder: URL, key: DPoPKey? = nil) throws
        -> (ProviderClient, SessionManager, DPoPKey?)
    {
        let store = try LiveSession.makeStore(folder)
        var configuration = try emulator.providerConfiguration()
        let dpop = try key ?? DPoPKey.stored(in: store)
        configuration.dpop = dpop
        let provider = ProviderClient(configuration: configuration)
        return (provider, SessionManager(provider: provider, store: store), dpop)
    }

    static func signIn(_ provider: ProviderClient, _ session: SessionManager) async throws -> Credentials {
        let credentials = try await provider.signIn(
            username: AuthEmulator.User.aliceEmail, password: Secret(AuthEmulator.User.alicePassword))
        try await session.store(credentials)
        return credentials
    }

    static func jkt(of credentials: Credentials) throws -> String? {
        try JWT(decoding: credentials.accessToken.unsafeRawValue).claims["cnf"]?["jkt"]?.stringValue
    }

    @Test("bound tokens; userinfo with a proof, not as a bearer token; renewal, a relaunch and logout with the key")
    func boundSession() async throws {
        try await LiveEmulator.with { emulator in
            try await TemporaryFolder.with { folder in
                let (provider, session, stored) = try Self.session(emulator, folder: URL(fileURLWithPath: folder))
                let key = try #require(stored)
                let signedIn = try await Self.signIn(provider, session)
                #expect(signedIn.tokenType == "DPoP" && signedIn.isDPoPBound)
                #expect(try Self.jkt(of: signedIn) == key.thumbprint)
                #expect(try await session.userInfo().subject == AuthEmulator.User.aliceID)

                // Without the key the token is worthless: as a bearer token the userinfo endpoint refuses it.
                let bearer = ProviderClient(configuration: try emulator.providerConfiguration())
                let refused = await #expect(throws: SessionKitError.self) {
                    try await bearer.userInfo(accessToken: signedIn.accessToken)
                }
                #expect(refused?.oauthError == "invalid_token")

                try await emulator.controls.resetRequestCounts()
                let renewed = try await session.renew()
                #expect(renewed.isDPoPBound && renewed.accessToken != signedIn.accessToken)
                #expect(try Self.jkt(of: renewed) == key.thumbprint)
                #expect(try await emulator.controls.requestCounts()[.refreshToken] == 1)

                // A relaunch reads the same key back from the store, and goes on with the session.
                let (_, relaunched, again) = try Self.session(emulator, folder: URL(fileURLWithPath: folder))
                #expect(again == key)
                #expect(try await relaunched.renew().isDPoPBound)
                let result = try await relaunched.logout()
                #expect(result.revoked, "the revocation request carried a proof and was accepted")
            }
        }
    }

    @Test("a lost key: the new key cannot renew the bound refresh token, so the session ends once, without retries")
    func lostKey() async throws {
        try await LiveEmulator.with { emulator in
            try await TemporaryFolder.with { folder in
                let (provider, session, _) = try Self.session(emulator, folder: URL(fileURLWithPath: folder))
                _ = try await Self.signIn(provider, session)
                // The store was wiped of its key (a restored backup, another device): a new key is made.
                let (_, withNewKey, _) = try Self.session(
                    emulator, folder: URL(fileURLWithPath: folder), key: DPoPKey.generate())
                try await emulator.controls.resetRequestCounts()
                let error = await #expect(throws: SessionKitError.self) { try await withNewKey.renew() }
                #expect(error?.code == .signInRequired, "\(String(describing: error))")
                #expect(try await emulator.controls.requestCounts()[.refreshToken] == 1, "one refusal, no loop")
                #expect(try await !withNewKey.hasSession())
                let again = await #expect(throws: SessionKitError.self) { try await withNewKey.credentials() }
                #expect(again?.code == .signInRequired)
                #expect(try await emulator.controls.requestCounts()[.refreshToken] == 1)
            }
        }
    }

    @Test("DPoP turned off with a bound session: sign-in required at once, and nothing sent")
    func keyMissing() async throws {
        try await LiveEmulator.with { emulator in
            try await TemporaryFolder.with { folder in
                let (provider, session, _) = try Self.session(emulator, folder: URL(fileURLWithPath: folder))
                let signedIn = try await Self.signIn(provider, session)
                let plain = SessionManager(
                    provider: ProviderClient(configuration: try emulator.providerConfiguration()),
                    store: try LiveSession.makeStore(URL(fileURLWithPath: folder)))
                try await emulator.controls.resetRequestCounts()
                let error = await #expect(throws: SessionKitError.self) { try await plain.renew() }
                #expect(error?.code == .signInRequired)
                #expect(error?.message.contains("DPoP key") == true)
                #expect(try await emulator.controls.requestCounts()[.token] == 0)
                #expect(try await plain.storedCredentials() == signedIn, "kept: turning DPoP back on restores it")
            }
        }
    }

    @Test("nonces: the token endpoint and userinfo each demand one; a rotated nonce costs one more request, once")
    func nonces() async throws {
        try await LiveEmulator.with(LiveEmulator.configuration { $0.dpopNonceRequired = true }) { emulator in
            try await TemporaryFolder.with { folder in
                let (provider, session, _) = try Self.session(emulator, folder: URL(fileURLWithPath: folder))
                try await emulator.controls.resetRequestCounts()
                _ = try await Self.signIn(provider, session)
                #expect(try await emulator.controls.requestCounts()[.token] == 2, "use_dpop_nonce, then the grant")
                _ = try await session.userInfo()
                #expect(try await emulator.controls.requestCounts()[.userinfo] == 1, "the nonce of this origin")

                try await emulator.controls.rotateDPoPNonce()
                _ = try await session.renew()
                #expect(try await emulator.controls.requestCounts()[.token] == 4)
                #expect(try await emulator.controls.requestCounts()[.refreshToken] == 2, "refused unspent, then sent")
                try await emulator.controls.rotateDPoPNonce()
                _ = try await session.userInfo()
                #expect(try await emulator.controls.requestCounts()[.userinfo] == 3, "401 use_dpop_nonce, then 200")

                // A nonce rotated while twenty callers ask at once: one renewal, one retry.
                try await emulator.controls.rotateDPoPNonce()
                try await emulator.controls.inject(.latency(0.5).only(.refreshToken), into: .token)
                try await emulator.controls.resetRequestCounts()
                let tokens = try await withThrowingTaskGroup(of: String.self) { group in
                    for _ in 0..<20 { group.addTask { try await session.renew().accessToken.unsafeRawValue } }
                    return try await group.reduce(into: Set<String>()) { $0.insert($1) }
                }
                #expect(tokens.count == 1)
                #expect(try await emulator.controls.requestCounts()[.token] == 2)
            }
        }
    }

    @Test(
        "proofs the emulator refuses: another URL, a reused jti, a stale iat, another key; SessionKit never repeats a jti"
    )
    func refusedProofs() async throws {
        try await LiveEmulator.with { emulator in
            try await TemporaryFolder.with { folder in
                let (provider, session, stored) = try Self.session(emulator, folder: URL(fileURLWithPath: folder))
                let key = try #require(stored)
                let credentials = try await Self.signIn(provider, session)
                let userinfo = emulator.issuer.appendingPathComponent("userinfo")
                func ask(_ proof: String) async throws -> HTTPResponse {
                    try await ProviderClient.defaultTransport.send(
                        HTTPRequest(
                            method: "GET", url: userinfo,
                            headers: [
                                ("Authorization", "DPoP \(credentials.accessToken.unsafeRawValue)"), ("DPoP", proof),
                            ]),
                        timeout: .seconds(10))
                }
                let token = credentials.accessToken
                let good = try key.proof(method: "GET", url: userinfo, accessToken: token)
                #expect(try await ask(good).status == 200)
                #expect(try await ask(good).status == 401, "the same jti again")
                let cases: [(String, String)] = [
                    (try key.proof(method: "GET", url: emulator.issuer, accessToken: token), "htu"),
                    (try key.proof(method: "POST", url: userinfo, accessToken: token), "htm"),
                    (try key.proof(method: "GET", url: userinfo, accessToken: token, now: Date() - 300), "iat"),
                    (try key.proof(method: "GET", url: userinfo, accessToken: Secret("another")), "ath"),
                    (try DPoPKey.generate().proof(method: "GET", url: userinfo, accessToken: token), "key"),
                ]
                for (proof, broken) in cases {
                    let answer = try await ask(proof)
                    #expect(answer.status == 401, "\(broken)")
                    #expect(answer.header("WWW-Authenticate")?.contains("invalid_dpop_proof") == true, "\(broken)")
                }
                #expect(
                    try await ask(try key.proof(method: "GET", url: userinfo, accessToken: token)).status == 200)

                var seen = Set<String>()
                for _ in 0..<500 {
                    let proof = try key.proof(method: "GET", url: userinfo, accessToken: token)
                    let jti = try #require(try JWT(decoding: proof).identifier)
                    #expect(seen.insert(jti).inserted)
                }
            }
        }
    }

    @Test("a proof's claims are JSON whatever the nonce or URL holds; the header is the key's public JWK")
    func proofClaims() async throws {
        let key = DPoPKey.generate()
        let nonce = "n\"o\\n\u{1}ce"
        let url = URL(string: "https://api.example.com/a%22b/c?q=1#f")!
        let proof = try key.proof(method: "post", url: url, accessToken: Secret("at"), nonce: nonce)
        let jwt = try JWT(decoding: proof)
        #expect(jwt.claims["nonce"]?.stringValue == nonce)
        #expect(jwt.claims["htu"]?.stringValue == "https://api.example.com/a%22b/c")
        #expect(jwt.claims["htm"]?.stringValue == "POST")
        #expect(jwt.header.type == "dpop+jwt" && jwt.header.algorithm == "ES256")
        #expect(jwt.header.parameters["jwk"]?["x"] != nil && jwt.header.parameters["jwk"]?["d"] == nil, "public only")
    }
}
