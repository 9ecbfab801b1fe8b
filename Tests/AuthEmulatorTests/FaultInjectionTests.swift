import AuthEmulator
import Foundation
import NIOHTTP1
import Testing

@Suite("Fault injection and request counts")
struct FaultInjectionTests {
    @Test func statusFaultNTimesThenSuccess() async throws {
        try await Harness.with { h in
            try await h.emulator.controls.inject(.status(503).times(2), into: .token)
            for _ in 0..<2 {
                let failed = try await h.token(["grant_type": "password", "client_id": Harness.native])
                #expect(failed.status == 503)
                #expect(failed.headers.first(name: "Retry-After") == "1")
            }
            #expect(try await h.signIn().status == 200)
            #expect(try await h.emulator.controls.requestCounts()[.token] == 3)
        }
    }

    @Test func countedFaultsAreExactUnderConcurrency() async throws {
        try await Harness.with { h in
            try await h.emulator.controls.inject(.status(503).times(3), into: .discovery)
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<10 { group.addTask { try await h.get(".well-known/openid-configuration").status } }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 503 }.count == 3)
            #expect(statuses.filter { $0 == 200 }.count == 7)
            #expect(try await h.emulator.controls.requestCounts()[.discovery] == 10)
        }
    }

    @Test(arguments: [429, 500])
    func statusFaultUntilCleared(status: Int) async throws {
        try await Harness.with { h in
            try await h.emulator.controls.inject(.status(status), into: .userinfo)
            #expect(try await h.get("userinfo").status == status)
            #expect(try await h.get("userinfo").status == status)
            try await h.emulator.controls.clearFaults(.userinfo)
            #expect(try await h.get("userinfo").status == 401)
        }
    }

    @Test func latencyDelaysTheAnswer() async throws {
        try await Harness.with { h in
            try await h.emulator.controls.inject(.latency(0.4).times(1), into: .discovery)
            let clock = ContinuousClock()
            let start = clock.now
            let slow = try await h.get(".well-known/openid-configuration")
            #expect(slow.status == 200)
            #expect(clock.now - start >= .milliseconds(400))
        }
    }

    @Test func malformedBodyIsNotJSON() async throws {
        try await Harness.with { h in
            try await h.emulator.controls.inject(.malformedBody.times(1), into: .token)
            let result = try await h.token(["grant_type": "password", "client_id": Harness.native])
            #expect(result.status == 200)
            #expect((try? JSONSerialization.jsonObject(with: result.body)) == nil)
        }
    }

    @Test func truncatedBodyAndDroppedConnectionFailTheRequest() async throws {
        try await Harness.with { h in
            try await h.emulator.controls.inject(.truncatedBody.times(1), into: .jwks)
            await #expect(throws: (any Error).self) { try await h.get(".well-known/jwks.json") }
            try await h.emulator.controls.inject(.dropConnection.times(1), into: .jwks)
            await #expect(throws: (any Error).self) { try await h.get(".well-known/jwks.json") }
            #expect(try await h.get(".well-known/jwks.json").status == 200)
            #expect(try await h.emulator.controls.requestCounts()[.jwks] == 3)
        }
    }

    @Test func processThenDropRotatesAndTheRetryUsesTheReuseInterval() async throws {
        try await Harness.with(.testing { $0.refreshTokenRotation.reuseInterval = 10 }) { h in
            let original = try #require(try await h.signIn()["refresh_token"])
            try await h.emulator.controls.inject(.processThenDrop.only(.refreshToken).times(1), into: .token)
            await #expect(throws: (any Error).self) { try await h.refresh(original) }
            let retry = try await h.refresh(original)
            #expect(retry.status == 200, "the lost response is recovered within the reuse interval")
            let counts = try await h.emulator.controls.requestCounts()
            #expect(counts[.refreshToken] == 2)
            #expect(counts[.password] == 1)
        }
    }

    @Test func processThenDropWithoutGraceRevokesOnRetry() async throws {
        try await Harness.with { h in
            let original = try #require(try await h.signIn()["refresh_token"])
            try await h.emulator.controls.inject(.processThenDrop.only(.refreshToken).times(1), into: .token)
            await #expect(throws: (any Error).self) { try await h.refresh(original) }
            #expect(try await h.refresh(original)["error"] == "invalid_grant", "the token was spent server-side")
        }
    }

    @Test func grantTypeFilterLeavesOtherGrantsAlone() async throws {
        try await Harness.with { h in
            try await h.emulator.controls.inject(.status(500).only(.refreshToken), into: .token)
            let signIn = try await h.signIn()
            let refreshToken = try #require(signIn["refresh_token"])
            #expect(try await h.refresh(refreshToken).status == 500)
        }
    }

    @Test func requestCountsPerEndpointAndGrantWithReset() async throws {
        try await Harness.with { h in
            _ = try await h.get(".well-known/openid-configuration")
            _ = try await h.get(".well-known/jwks.json")
            let signIn = try await h.signIn()
            _ = try await h.refresh(try #require(signIn["refresh_token"]))
            _ = try await h.get("userinfo")
            var counts = try await h.emulator.controls.requestCounts()
            #expect(counts[.discovery] == 1)
            #expect(counts[.jwks] == 1)
            #expect(counts[.token] == 2)
            #expect(counts[.password] == 1)
            #expect(counts[.refreshToken] == 1)
            #expect(counts[.userinfo] == 1)
            #expect(counts[.revoke] == 0)
            try await h.emulator.controls.resetRequestCounts()
            counts = try await h.emulator.controls.requestCounts()
            #expect(counts == AuthEmulator.RequestCounts())
        }
    }
}
