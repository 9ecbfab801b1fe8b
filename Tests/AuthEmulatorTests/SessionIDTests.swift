import AuthEmulator
import Foundation
import NIOHTTP1
import Testing

@Suite("Session ids in ID tokens")
struct SessionIDTests {
    @Test func idTokensOfABrowserSessionCarryItsSid() async throws {
        try await Harness.with { h in
            let first = try await h.signInWithBrowser()
            let claims = try await h.verify(first.idToken).claims
            let sid = try #require(claims["sid"]?.stringValue)
            #expect(sid.count >= 16)
            #expect(!first.cookie.contains(sid), "the sid is not the cookie")

            // Another client signing in silently in the same session gets the same sid.
            let other = try await h.signInConfidentialClient(cookie: first.cookie)
            #expect(try Harness.unverifiedClaims(other)["sid"]?.stringValue == sid)

            // A refreshed ID token of the family keeps it.
            let refreshed = try await h.refresh(try #require(first.tokens["refresh_token"]))
            #expect(refreshed.status == 200)
            let again = try await h.verify(try #require(refreshed["id_token"])).claims
            #expect(again["sid"]?.stringValue == sid)

            // A new browser session has another sid.
            let second = try await h.signInWithBrowser()
            #expect(try await h.verify(second.idToken).claims["sid"]?.stringValue != sid)
        }
    }

    @Test func grantsWithoutABrowserSessionCarryNoSid() async throws {
        try await Harness.with { h in
            let tokens = try await h.signIn()
            let claims = try await h.verify(try #require(tokens["id_token"])).claims
            #expect(claims["sid"] == nil)
            #expect(claims["sub"]?.stringValue == AuthEmulator.User.aliceID)
        }
    }

    @Test func discoveryAdvertisesLogout() async throws {
        try await Harness.with { h in
            let doc = try await h.get(".well-known/openid-configuration").json
            #expect(doc["end_session_endpoint"]?.stringValue == h.issuer + "oidc/logout")
            #expect(doc["frontchannel_logout_supported"] == false)
            #expect(doc["backchannel_logout_supported"] == true)
            #expect(doc["backchannel_logout_session_supported"] == true)
            guard case .array(let claims)? = doc["claims_supported"] else {
                Issue.record("claims_supported missing")
                return
            }
            #expect(claims.contains("sid"))
        }
    }
}
