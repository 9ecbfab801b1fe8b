import AuthEmulator
import Foundation
import NIOHTTP1
import Testing

@Suite("Test controls")
struct ControlTests {
    @Test func controlsAreOffByDefault() async throws {
        try await Harness.with(.testing { $0.testControlsEnabled = false }) { h in
            do {
                try await h.emulator.controls.advanceClock(by: 1)
                Issue.record("controls must be off")
            } catch let error as AuthEmulatorError {
                #expect(error.code == .controlsDisabled)
            }
            #expect(try await h.get("__emulator/clock").status == 404)
            await #expect(throws: AuthEmulatorError.self) { try await h.emulator.controls.requestCounts() }
        }
    }

    @Test func httpControlsMirrorTheSwiftAPI() async throws {
        try await Harness.with(.testing { $0.lifetimes.accessToken = 100 }) { h in
            let access = try #require(try await h.signIn()["access_token"])
            let advanced = try await h.send(
                .POST, "__emulator/clock/advance", body: #"{"seconds":101}"#, contentType: "application/json")
            #expect(advanced.status == 200)
            #expect(try await h.get("userinfo", headers: h.bearer(access)).status == 401)

            let fault = #"{"endpoint":"discovery","fault":{"action":"status","status":503,"latency":0,"count":1}}"#
            #expect(
                try await h.send(.POST, "__emulator/faults", body: fault, contentType: "application/json").status == 200
            )
            #expect(try await h.get(".well-known/openid-configuration").status == 503)
            #expect(try await h.get(".well-known/openid-configuration").status == 200)

            #expect(
                try await h.send(.POST, "__emulator/faults", body: fault, contentType: "application/json").status == 200
            )
            #expect(try await h.send(.DELETE, "__emulator/faults?endpoint=nowhere").status == 404)
            #expect(try await h.send(.DELETE, "__emulator/faults?endpoint=discovery").status == 200)
            #expect(try await h.get(".well-known/openid-configuration").status == 200)

            let counts = try await h.get("__emulator/requests")
            #expect(counts.json["byEndpoint"]?.objectValue?["discovery"] == 3)
            #expect(try await h.send(.DELETE, "__emulator/requests").status == 200)
            #expect(try await h.emulator.controls.requestCounts()[.discovery] == 0)

            await #expect(throws: AuthEmulatorError.self) { try await h.emulator.controls.advanceClock(by: .infinity) }
            await #expect(throws: AuthEmulatorError.self) { try await h.emulator.controls.advanceClock(by: -1) }
            // A cross-site page can POST text/plain or a form without a preflight: refused, nothing rotated.
            let before = try await h.emulator.controls.currentKeyID()
            for type in ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"] {
                #expect(try await h.send(.POST, "__emulator/keys/rotate", body: "{}", contentType: type).status == 415)
                let fault = #"{"endpoint":"token","fault":{"action":"dropConnection"}}"#
                #expect(try await h.send(.POST, "__emulator/faults", body: fault, contentType: type).status == 415)
            }
            #expect(try await h.send(.POST, "__emulator/keys/rotate").status == 415, "no content type at all")
            #expect(try await h.emulator.controls.currentKeyID() == before)
            let rotated = try await h.send(.POST, "__emulator/keys/rotate", body: "{}", contentType: "application/json")
            #expect(rotated["kid"] == (try await h.emulator.controls.currentKeyID()))

            let device = try await h.postForm("oauth/device/code", ["client_id": Harness.native])
            let approve =
                #"{"user_code":"\#(try #require(device["user_code"]))","user_id":"\#(AuthEmulator.User.bobID)"}"#
            #expect(
                try await h.send(.POST, "__emulator/device/approve", body: approve, contentType: "application/json")
                    .status == 200)
            let again = try await h.send(
                .POST, "__emulator/device/approve", body: approve, contentType: "application/json")
            #expect(again.status == 404)

            let revoke = try await h.send(
                .POST, "__emulator/users/auth0%7C65a1f0c0ffee000000000001/revoke", body: "{}",
                contentType: "application/json")
            #expect(revoke.json["revoked"] == 1)

            // MFA demanded on refresh for alice, over HTTP: a refresh grant is answered mfa_required, then works.
            let signedIn = try await h.postForm(
                "oauth/token",
                [
                    "grant_type": "password", "client_id": Harness.native, "username": AuthEmulator.User.aliceEmail,
                    "password": AuthEmulator.User.alicePassword, "scope": "openid offline_access",
                ])
            let refreshToken = try #require(signedIn["refresh_token"])
            let mfa = "__emulator/users/auth0%7C65a1f0c0ffee000000000001/mfa"
            #expect(
                try await h.send(.POST, mfa, body: #"{"required":true}"#, contentType: "application/json").status
                    == 200)
            let refresh = ["grant_type": "refresh_token", "client_id": Harness.native, "refresh_token": refreshToken]
            let demanded = try await h.postForm("oauth/token", refresh)
            #expect(demanded["error"] == "mfa_required" && demanded["mfa_token"] != nil)
            #expect(
                try await h.send(.POST, mfa, body: #"{"required":false}"#, contentType: "application/json").status
                    == 200)
            #expect(try await h.postForm("oauth/token", refresh)["access_token"] != nil)
            #expect(
                try await h.send(.POST, "__emulator/faults", body: "{}", contentType: "application/json").status == 400)
        }
    }
}
