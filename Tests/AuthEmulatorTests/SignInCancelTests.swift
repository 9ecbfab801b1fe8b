import AuthEmulator
import Foundation
import Testing

/// The sign-in form's Cancel button, as a user who declines: the client gets `access_denied` with its state.
@Suite("Sign-in form: Cancel")
struct SignInCancelTests {
    @Test func cancelRedirectsWithAccessDenied() async throws {
        try await Harness.with { h in
            let pkce = Harness.pkce()
            let form = try await h.get(Harness.authorizePath(challenge: pkce.challenge))
            #expect(form.text.contains("name=\"action\" value=\"deny\""))
            let fields = [
                "client_id": Harness.native, "redirect_uri": Harness.callback, "response_type": "code",
                "scope": Harness.fullScope, "state": "state-123", "code_challenge": pkce.challenge,
                "code_challenge_method": "S256", "action": "deny",
            ]
            let cancelled = try await h.postForm("u/login", fields)
            #expect(cancelled.status == 302)
            #expect(cancelled.redirectQuery["error"] == "access_denied")
            #expect(cancelled.redirectQuery["state"] == "state-123")
            #expect(cancelled.redirectQuery["code"] == nil)
        }
    }
}
