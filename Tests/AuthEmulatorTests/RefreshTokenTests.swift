import AuthEmulator
import Foundation
import NIOHTTP1
import Testing

@Suite("Refresh tokens: rotation, reuse, scope")
struct RefreshTokenTests {
    @Test func eachRefreshRotatesTheToken() async throws {
        try await Harness.with { h in
            let first = try #require(try await h.signIn()["refresh_token"])
            let refreshed = try await h.refresh(first)
            #expect(refreshed.status == 200)
            #expect(refreshed.headers.first(name: "Cache-Control") == "no-store")
            let second = try #require(refreshed["refresh_token"])
            #expect(second != first)
            #expect(refreshed["id_token"] != nil)
            #expect(try await h.refresh(second).status == 200)
        }
    }

    @Test func scopeMayNarrowButNotWiden() async throws {
        try await Harness.with { h in
            let token = try #require(try await h.signIn(scope: "openid email offline_access")["refresh_token"])
            let narrowed = try await h.refresh(token, scope: "openid")
            #expect(narrowed["scope"] == "openid")
            let claims = try await h.verify(try #require(narrowed["access_token"])).claims
            #expect(claims["scope"] == "openid")
            let next = try #require(narrowed["refresh_token"])
            let widened = try await h.refresh(next, scope: "openid profile")
            #expect(widened.status == 400)
            #expect(widened["error"] == "invalid_scope")
        }
    }

    @Test func reuseAfterTheIntervalRevokesTheFamily() async throws {
        try await Harness.with { h in
            let original = try #require(try await h.signIn()["refresh_token"])
            let sibling = try #require(try await h.refresh(original)["refresh_token"])
            let reuse = try await h.refresh(original)
            #expect(reuse.status == 403, "Auth0 answers refresh invalid_grant with 403")
            #expect(reuse["error"] == "invalid_grant")
            let afterRevocation = try await h.refresh(sibling)
            #expect(afterRevocation["error"] == "invalid_grant", "the whole family is revoked")
            // An unrelated sign-in is unaffected.
            let other = try #require(try await h.signIn()["refresh_token"])
            #expect(try await h.refresh(other).status == 200)
        }
    }

    @Test func reuseWithinTheIntervalReturnsAFreshPair() async throws {
        try await Harness.with(.testing { $0.refreshTokenRotation.reuseInterval = 30 }) { h in
            let original = try #require(try await h.signIn()["refresh_token"])
            let first = try await h.refresh(original)
            let retry = try await h.refresh(original)
            #expect(retry.status == 200)
            let retried = try #require(retry["refresh_token"])
            #expect(retried != first["refresh_token"])
            #expect(try await h.refresh(retried).status == 200)
            try await h.emulator.controls.advanceClock(by: 31)
            #expect(try await h.refresh(original)["error"] == "invalid_grant")
            let firstRotated = try #require(first["refresh_token"])
            #expect(try await h.refresh(firstRotated)["error"] == "invalid_grant")
        }
    }

    @Test func onlyThePreviousTokenMayBeReusedWithinTheInterval() async throws {
        try await Harness.with(.testing { $0.refreshTokenRotation.reuseInterval = 30 }) { h in
            let first = try #require(try await h.signIn()["refresh_token"])
            let second = try #require(try await h.refresh(first)["refresh_token"])
            let third = try #require(try await h.refresh(second)["refresh_token"])
            let stale = try await h.refresh(first)
            #expect(stale["error"] == "invalid_grant", "a token two rotations back is a breach")
            #expect(try await h.refresh(third)["error"] == "invalid_grant", "the family is revoked")
        }
    }

    @Test func concurrentUseOfOneTokenSucceedsOnce() async throws {
        try await Harness.with { h in
            let token = try #require(try await h.signIn()["refresh_token"])
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<8 { group.addTask { try await h.refresh(token).status } }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 200 }.count == 1)
            #expect(statuses.filter { $0 == 403 }.count == 7)
        }
    }

    @Test func withoutRotationTheSameTokenKeepsWorking() async throws {
        try await Harness.with(.testing { $0.refreshTokenRotation.enabled = false }) { h in
            let token = try #require(try await h.signIn()["refresh_token"])
            let first = try await h.refresh(token)
            #expect(first.status == 200)
            #expect(first["refresh_token"] == nil)
            #expect(try await h.refresh(token).status == 200)
        }
    }

    @Test func idleAndAbsoluteExpiryFollowTheClock() async throws {
        try await Harness.with(
            .testing {
                $0.lifetimes.refreshTokenIdle = 100
                $0.lifetimes.refreshTokenAbsolute = 250
            }
        ) { h in
            let idle = try #require(try await h.signIn()["refresh_token"])
            try await h.emulator.controls.advanceClock(by: 101)
            #expect(try await h.refresh(idle)["error"] == "invalid_grant")

            var token = try #require(try await h.signIn()["refresh_token"])
            for _ in 0..<2 {
                try await h.emulator.controls.advanceClock(by: 90)
                token = try #require(try await h.refresh(token)["refresh_token"])
            }
            try await h.emulator.controls.advanceClock(by: 90)
            #expect(try await h.refresh(token)["error"] == "invalid_grant", "absolute lifetime passed")
        }
    }

    @Test func aRefreshTokenIsBoundToItsClient() async throws {
        try await Harness.with { h in
            let token = try #require(try await h.signIn()["refresh_token"])
            let result = try await h.token([
                "grant_type": "refresh_token", "client_id": AuthEmulator.Client.confidentialID,
                "client_secret": AuthEmulator.Client.confidentialSecret, "refresh_token": token,
            ])
            #expect(result["error"] == "invalid_grant")
        }
    }
}
