import AuthEmulator
import Foundation
import SecureStore
import SessionKit
import SessionKitTesting
import Testing

/// Native to Web SSO through the back end for front ends (issue 47): the app opens the web app's `/auth/login`
/// with a session transfer token, and the browser lands signed in, without the provider's form, once.
@Suite("Native to Web SSO at the back end", .enabled(if: BFFPostgres.shouldRun, BFFPostgres.skipNote))
struct SessionTransferSignInTests {
    @Test("/auth/login?session_transfer_token= signs the app's user in without a form; the token works once")
    func signInWithTransfer() async throws {
        try await LiveEmulator.with { emulator in
            let deployment = BFFPostgres.Deployment()
            let a = try await InProcessInstance.start(emulator: emulator, store: try await deployment.store())
            // The native app's session (alice, the native client), which makes the token.
            let native = ProviderClient(configuration: try emulator.providerConfiguration())
            let app = SessionManager(
                provider: native, store: SynchronousStoreAdapter(MemoryStore(service: "tests.bff.transfer")))
            try await app.store(
                try await native.signIn(
                    username: AuthEmulator.User.aliceEmail, password: Secret(AuthEmulator.User.alicePassword)))
            let browser = CookieBrowser()
            let other = CookieBrowser()
            do {
                let transfer = try await app.sessionTransferToken()
                let start = try await browser.get(transfer.appended(to: a.at("/auth/login")))
                #expect(start.status == 303)
                let authorize = try #require(start.location)
                #expect(authorize.absoluteString.contains("session_transfer_token="))
                let back = try await browser.get(authorize)
                #expect(back.status == 302, "the provider signs alice in without its form")
                let callback = try #require(back.location)
                let landed = try await browser.get(CookieBrowser.rebase(callback, onto: a.url))
                #expect(landed.status == 303)
                let me = try await browser.get(a.at("/auth/me"))
                #expect(me.status == 200)
                #expect(me.json["sub"] as? String == AuthEmulator.User.aliceID, "\(me.text)")

                // The same token again, in another browser: the provider's form, no sign-in.
                let second = try await other.get(transfer.appended(to: a.at("/auth/login")))
                let page = try await other.get(try #require(second.location))
                #expect(page.status == 200 && page.text.contains("<form"), "a used token signs nobody in")
            } catch {
                Issue.record(error)
            }
            await browser.shutdown()
            await other.shutdown()
            await a.stop()
        }
    }
}
