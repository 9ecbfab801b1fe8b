import AuthEmulator
import Foundation
import SessionKit
import SessionKitTesting
import Testing

/// Step-up: a provider that answers a refresh with `mfa_required` (Auth0, when an action demands MFA), and RFC
/// 9470's `insufficient_user_authentication` challenge from a resource server. Against the live emulator, whose
/// test controls demand MFA on refresh for a user.
@Suite("Step-up: mfa_required and insufficient_user_authentication keep the session and say what to ask for")
struct StepUpTests {
    static let multiFactor = "http://schemas.openid.net/pape/policies/2007/06/multi-factor"
    static let autoSignIn = LiveEmulator.configuration { $0.autoSignInUser = AuthEmulator.User.aliceEmail }

    @Test("a refresh answered mfa_required: stepUpRequired with the mfa_token, the session and its token kept")
    func mfaRequiredOnRefresh() async throws {
        try await LiveEmulator.with { emulator in
            let live = try LiveSession.make(emulator)
            defer { live.cleanUp() }
            let signedIn = try await live.signIn()
            try await emulator.controls.requireMultiFactor(forUser: AuthEmulator.User.aliceID)
            live.expire(signedIn)
            await #expect {
                _ = try await live.session.credentials()
            } throws: { error in
                guard let error = error as? SessionKitError, error.code == .stepUpRequired else { return false }
                let token = error.stepUp?.mfaToken?.unsafeRawValue ?? ""
                return !token.isEmpty && !error.isRetryable && error.oauthError == "mfa_required"
                    && !"\(error)".contains(token) && !"\(error.stepUp!)".contains(token)
                    && error.message.contains("session is kept")
            }
            #expect(try await live.session.hasSession(), "the session is kept")
            // The refresh token was not spent: once the demand is lifted it renews.
            try await emulator.controls.requireMultiFactor(forUser: AuthEmulator.User.aliceID, false)
            let renewed = try await live.session.credentials()
            #expect(renewed.accessToken != signedIn.accessToken)
        }
    }

    @Test("a sign-in that asks for the acr_values meets the demand: the ID token names it, and refresh works")
    func stepUpSignIn() async throws {
        try await LiveEmulator.with(Self.autoSignIn) { emulator in
            let live = try LiveSession.make(emulator)
            defer { live.cleanUp() }
            try await emulator.controls.requireMultiFactor(forUser: AuthEmulator.User.aliceID)
            let challenge = StepUpChallenge(acrValues: [Self.multiFactor], maxAge: 0)
            let redirect = try #require(URL(string: "http://127.0.0.1:8765/callback"))
            let request = try await live.provider.authorizationRequest(redirectURI: redirect, stepUp: challenge)
            let query = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
            #expect(query.first { $0.name == "acr_values" }?.value == Self.multiFactor)
            #expect(query.first { $0.name == "max_age" }?.value == "0")
            let callback = try await LoopbackBrowser().redirect(fromAuthorization: request.url)
            let credentials = try await live.provider.exchange(callback: callback, for: request)
            #expect(credentials.idTokenClaims?.claims["acr"]?.stringValue == Self.multiFactor)
            try await live.session.store(credentials)
            live.expire(credentials)
            let renewed = try await live.session.credentials()
            #expect(renewed.accessToken != credentials.accessToken)
        }
    }

    @Test("a step-up request without acr_values or max_age asks for a new sign-in (prompt=login)")
    func promptLogin() async throws {
        try await LiveEmulator.with { emulator in
            let provider = ProviderClient(configuration: try emulator.providerConfiguration())
            let redirect = try #require(URL(string: "http://127.0.0.1:8765/callback"))
            let request = try await provider.authorizationRequest(redirectURI: redirect, stepUp: StepUpChallenge())
            let query = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
            #expect(query.first { $0.name == "prompt" }?.value == "login")
            #expect(!query.contains { $0.name == "acr_values" || $0.name == "max_age" })
        }
    }

    @Test(
        "RFC 9470 challenges are read from WWW-Authenticate; anything else is not a step-up",
        arguments: [
            (
                #"Bearer error="insufficient_user_authentication", error_description="A different authentication level is required", acr_values="myACR""#,
                StepUpChallenge(acrValues: ["myACR"])
            ),
            (
                #"Bearer error="insufficient_user_authentication", error_description="More recent authentication is required", max_age="5""#,
                StepUpChallenge(maxAge: 5)
            ),
            (
                #"DPoP realm="api", error=insufficient_user_authentication, acr_values="urn:a urn:b", max_age=60"#,
                StepUpChallenge(acrValues: ["urn:a", "urn:b"], maxAge: 60)
            ),
            (
                #"Bearer error="insufficient_user_authentication", error_description="say \"hi\", please", max_age="-3""#,
                StepUpChallenge()
            ),
            (#"Bearer error="invalid_token", error_description="The access token expired""#, nil),
            (#"Basic realm="api""#, nil),
            ("Bearer", nil),
            ("", nil),
            (#"Bearer error="insufficient_user_authentication"#, StepUpChallenge()),
        ] as [(String, StepUpChallenge?)])
    func wwwAuthenticate(header: String, expected: StepUpChallenge?) {
        #expect(StepUpChallenge(wwwAuthenticate: header) == expected)
    }
}
