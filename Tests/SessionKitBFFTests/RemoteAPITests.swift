import AuthEmulator
import Crypto
import Foundation
import SessionKit
import SessionKitBFF
import SessionKitTesting
import Testing

/// Issue 25: the back end forwards to several APIs, each with an access token for its own audience, all from the
/// user's one sign-in (the emulator's refresh-token policies, as Auth0's Multi-Resource Refresh Token).
@Suite("BFF: several upstreams, each with its own audience", .enabled(if: BFFPostgres.shouldRun, BFFPostgres.skipNote))
struct RemoteAPITests {
    static func bearer(_ page: CookieBrowser.Page) throws -> JWT {
        let headers = try #require(page.json["headers"] as? [String: [String]])
        let value = try #require(headers["authorization"]?.first)
        #expect(value.hasPrefix("Bearer "))
        return try JWT(decoding: String(value.dropFirst("Bearer ".count)))
    }

    @Test("/api gets the session's token, /payments a token for the payments API; renewed once, then from memory")
    func tokensPerUpstream() async throws {
        try await LiveEmulator.with { emulator in
            let main = try await EchoUpstream.start()
            let payments = try await EchoUpstream.start()
            let api = try BackendForFrontend.RemoteAPI(
                path: "/payments", upstream: payments.url, audience: AuthEmulator.API.paymentsIdentifier,
                scope: "read:payments")
            let instance = try await InProcessInstance.start(
                emulator: emulator, store: try await BFFPostgres.Deployment().store(), upstream: main.url,
                configure: { $0.remoteAPIs = [api] })
            let browser = CookieBrowser()
            do {
                #expect(try await browser.signIn(through: instance.url).status == 303)
                try await emulator.controls.resetRequestCounts()
                let own = try await browser.get(instance.at("/api/orders"), headers: [("X-CSRF", "1")])
                #expect(own.status == 200)
                #expect(try !Self.bearer(own).audience.contains(AuthEmulator.API.paymentsIdentifier))
                #expect(try await emulator.controls.requestCounts()[.refreshToken] == 0, "the sign-in's token")

                let charge = try await browser.get(instance.at("/payments/charges/7?x=1"), headers: [("X-CSRF", "1")])
                #expect(charge.status == 200)
                #expect(charge.json["path"] as? String == "/charges/7?x=1")
                let token = try Self.bearer(charge)
                #expect(token.audience == [AuthEmulator.API.paymentsIdentifier])
                #expect(token.scopes == ["read:payments"])
                let again = try await browser.get(instance.at("/payments/charges"), headers: [("X-CSRF", "1")])
                #expect(try Self.bearer(again).identifier == token.identifier, "the same token, from memory")
                #expect(try await emulator.controls.requestCounts()[.refreshToken] == 1)

                // The same rules as /api: the anti-forgery header, the path allow-list, a session.
                #expect(try await browser.get(instance.at("/payments/charges")).status == 403)
                #expect(
                    try await browser.get(instance.at("/payments/a/../b"), headers: [("X-CSRF", "1")]).status == 400)
                let stranger = CookieBrowser()
                #expect(try await stranger.get(instance.at("/payments/x"), headers: [("X-CSRF", "1")]).status == 401)
                await stranger.shutdown()
                #expect(try await browser.get(instance.at("/api/orders"), headers: [("X-CSRF", "1")]).status == 200)
            } catch {
                Issue.record(error)
            }
            await browser.shutdown()
            await instance.stop()
            await main.stop()
            await payments.stop()
        }
    }

    @Test("with DPoP the upstream gets Authorization: DPoP and a proof for that very request, bound to the token")
    func dpopToUpstream() async throws {
        try await LiveEmulator.with { emulator in
            let upstream = try await EchoUpstream.start()
            let store = try await BFFPostgres.Deployment().store()
            // The back end's key lives in its shared store, so that every instance signs with the same one.
            let key = try await DPoPKey.stored(in: store, forKey: "bff.dpop-key")
            #expect(try await DPoPKey.stored(in: store, forKey: "bff.dpop-key") == key, "read back, not made again")
            let instance = try await InProcessInstance.start(
                emulator: emulator, store: store, upstream: upstream.url, dpop: key)
            let browser = CookieBrowser()
            do {
                #expect(try await browser.signIn(through: instance.url).status == 303)
                let page = try await browser.get(
                    instance.at("/api/orders/7?sort=new"), headers: [("X-CSRF", "1"), ("DPoP", "from-the-browser")])
                #expect(page.status == 200)
                let headers = try #require(page.json["headers"] as? [String: [String]])
                let authorization = try #require(headers["authorization"]?.first)
                #expect(authorization.hasPrefix("DPoP "))
                let token = String(authorization.dropFirst("DPoP ".count))
                #expect(try JWT(decoding: token).claims["cnf"]?["jkt"]?.stringValue == key.thumbprint)
                let proofs = try #require(headers["dpop"])
                #expect(proofs.count == 1, "the browser's DPoP header is not forwarded")
                let proof = try JWT(decoding: proofs[0])
                #expect(proof.claims["htm"]?.stringValue == "GET")
                #expect(proof.claims["htu"]?.stringValue == upstream.url.absoluteString + "orders/7")
                let hash = Data(SHA256.hash(data: Data(token.utf8))).base64EncodedString()
                    .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                    .replacingOccurrences(of: "=", with: "")
                #expect(proof.claims["ath"]?.stringValue == hash)
            } catch {
                Issue.record(error)
            }
            await browser.shutdown()
            await instance.stop()
            await upstream.stop()
        }
    }
}
