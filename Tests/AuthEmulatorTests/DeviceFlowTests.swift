import AuthEmulator
import Foundation
import NIOHTTP1
import Testing

@Suite("Device authorization")
struct DeviceFlowTests {
    func start(_ h: Harness) async throws -> (device: String, user: String, result: HTTPResult) {
        let result = try await h.postForm(
            "oauth/device/code", ["client_id": Harness.native, "scope": Harness.fullScope])
        #expect(result.status == 200)
        return (try #require(result["device_code"]), try #require(result["user_code"]), result)
    }

    func poll(_ h: Harness, _ device: String) async throws -> HTTPResult {
        try await h.token([
            "grant_type": AuthEmulator.GrantType.deviceCode.rawValue, "client_id": Harness.native,
            "device_code": device,
        ])
    }

    @Test func deviceCodeResponseShape() async throws {
        try await Harness.with { h in
            let (_, userCode, result) = try await start(h)
            #expect(userCode.wholeMatch(of: /[B-DF-HJ-NP-TV-XZ]{4}-[B-DF-HJ-NP-TV-XZ]{4}/) != nil)
            #expect(result["verification_uri"] == h.issuer + "activate")
            #expect(result["verification_uri_complete"] == h.issuer + "activate?user_code=" + userCode)
            #expect(result.json["expires_in"] == 900)
            #expect(result.json["interval"] == 5)
        }
    }

    @Test func pendingThenSlowDownThenSuccessOnce() async throws {
        try await Harness.with { h in
            let (device, userCode, _) = try await start(h)
            let pending = try await poll(h, device)
            #expect(pending.status == 400)
            #expect(pending["error"] == "authorization_pending")
            let fast = try await poll(h, device)
            #expect(fast["error"] == "slow_down")
            try await h.emulator.controls.advanceClock(by: 6)
            #expect(try await poll(h, device)["error"] == "slow_down", "the interval grew to 10 s")
            try await h.emulator.controls.approveDevice(userCode: userCode, userID: AuthEmulator.User.aliceID)
            try await h.emulator.controls.advanceClock(by: 16)
            let tokens = try await poll(h, device)
            #expect(tokens.status == 200)
            #expect(tokens["refresh_token"] != nil)
            let claims = try await h.verify(try #require(tokens["id_token"])).claims
            #expect(claims["sub"]?.stringValue == AuthEmulator.User.aliceID)
            try await h.emulator.controls.advanceClock(by: 16)
            #expect(try await poll(h, device)["error"] == "invalid_grant", "tokens are handed out once")
        }
    }

    @Test func deniedAndExpiredCodes() async throws {
        try await Harness.with(.testing { $0.lifetimes.devicePollInterval = 0 }) { h in
            let denied = try await start(h)
            try await h.emulator.controls.denyDevice(userCode: denied.user)
            let refused = try await poll(h, denied.device)
            #expect(refused.status == 403)
            #expect(refused["error"] == "access_denied")

            let expiring = try await start(h)
            try await h.emulator.controls.advanceClock(by: 901)
            #expect(try await poll(h, expiring.device)["error"] == "expired_token")
            await #expect(throws: AuthEmulatorError.self) {
                try await h.emulator.controls.approveDevice(userCode: expiring.user, userID: AuthEmulator.User.aliceID)
            }
        }
    }

    @Test func activatePageApprovesWithCredentials() async throws {
        try await Harness.with(.testing { $0.lifetimes.devicePollInterval = 0 }) { h in
            let (device, userCode, _) = try await start(h)
            let page = try await h.get("activate?user_code=\(userCode)")
            #expect(page.status == 200)
            #expect(page.text.contains(userCode))
            let wrong = try await h.postForm(
                "activate",
                [
                    "user_code": userCode, "username": AuthEmulator.User.bobEmail, "password": "bad",
                    "action": "approve",
                ])
            #expect(wrong.status == 401)
            let bogus = try await h.postForm("activate", ["user_code": "BCDF-GHJK", "action": "approve"])
            #expect(bogus.status == 400)
            let approved = try await h.postForm(
                "activate",
                [
                    "user_code": userCode.lowercased(), "username": AuthEmulator.User.bobEmail,
                    "password": AuthEmulator.User.bobPassword, "action": "approve",
                ])
            #expect(approved.status == 200)
            let tokens = try await poll(h, device)
            let claims = try await h.verify(try #require(tokens["access_token"])).claims
            #expect(claims["sub"]?.stringValue == AuthEmulator.User.bobID)
        }
    }

    @Test func activatePageDenies() async throws {
        try await Harness.with(.testing { $0.lifetimes.devicePollInterval = 0 }) { h in
            let (device, userCode, _) = try await start(h)
            let denied = try await h.postForm(
                "activate",
                [
                    "user_code": userCode, "username": AuthEmulator.User.aliceEmail,
                    "password": AuthEmulator.User.alicePassword, "action": "deny",
                ])
            #expect(denied.status == 200)
            #expect(try await poll(h, device)["error"] == "access_denied")
        }
    }
}
