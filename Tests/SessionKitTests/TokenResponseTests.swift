import Foundation
import Testing

@testable import SessionKit

@Suite("Token response checks")
struct TokenResponseTests {
    private func parse(_ json: String) throws(SessionKitError) -> TokenResponse {
        try TokenResponse(body: Data(json.utf8), endpoint: "token endpoint")
    }

    @Test("a complete response parses; token_type is case-insensitive; unknown members are kept")
    func complete() throws {
        let response = try parse(
            #"{"access_token":"a","token_type":"bearer","expires_in":3600,"refresh_token":"r","id_token":"i","scope":"openid","x":1}"#
        )
        #expect(response.tokenType == "Bearer")
        #expect(response.expiresIn == 3600)
        #expect(response.additional == ["x": 1])
        let received = Date(timeIntervalSince1970: 1000)
        let credentials = response.credentials(receivedAt: received)
        #expect(credentials.expiresAt == Date(timeIntervalSince1970: 4600))
        #expect(credentials.refreshToken == Secret("r"))
    }

    @Test("a renewal without a refresh token keeps the old one")
    func keepsRefreshToken() throws {
        let previous = Credentials(
            accessToken: Secret("old"), idToken: Secret("id0"), refreshToken: Secret("r0"), expiresAt: nil)
        let renewed = try parse(#"{"access_token":"a","token_type":"Bearer","expires_in":60}"#)
            .credentials(receivedAt: Date(), keeping: previous)
        #expect(renewed.refreshToken == Secret("r0"))
        #expect(renewed.idToken == Secret("id0"))
        let rotated = try parse(#"{"access_token":"a","token_type":"Bearer","refresh_token":"r1"}"#)
            .credentials(receivedAt: Date(), keeping: previous)
        #expect(rotated.refreshToken == Secret("r1"))
    }

    @Test(
        "each rule fails alone",
        arguments: [
            (#"{"token_type":"Bearer","expires_in":60}"#, ValidationCheck.accessToken),
            (#"{"access_token":"","token_type":"Bearer"}"#, .accessToken),
            (#"{"access_token":"a","expires_in":60}"#, .tokenType),
            (#"{"access_token":"a","token_type":"mac"}"#, .tokenType),
            (#"{"access_token":"a","token_type":"Bearer","expires_in":0}"#, .expiresIn),
            (#"{"access_token":"a","token_type":"Bearer","expires_in":-5}"#, .expiresIn),
            (#"{"access_token":"a","token_type":"Bearer","expires_in":1e12}"#, .expiresIn),
            (#"{"access_token":"a","token_type":"Bearer","expires_in":"soon"}"#, .expiresIn),
        ]
    )
    func rule(json: String, check: ValidationCheck) {
        #expect {
            _ = try parse(json)
        } throws: { error in
            (error as? SessionKitError)?.failedCheck == check
        }
    }

    @Test("expires_in as a numeric string is accepted")
    func stringLifetime() throws {
        #expect(try parse(#"{"access_token":"a","token_type":"Bearer","expires_in":"3600"}"#).expiresIn == 3600)
    }

    @Test("a body that is not a JSON object is an invalid (retryable) response")
    func notJSON() {
        for body in ["<html>", "[1]", "", #"{"access_token":"a""#] {
            #expect {
                _ = try parse(body)
            } throws: { error in
                let error = error as? SessionKitError
                return error?.code == .invalidResponse && error?.isRetryable == true
            }
        }
    }
}
