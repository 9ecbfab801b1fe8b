import AuthEmulator
import Foundation
import NIOHTTP1
import SecureStore
import SessionKit
import SessionKitServer
import SessionKitTesting
import Testing

/// Two `sessionkit-bff` processes and a PostgreSQL role that may only log in, which hears every announcement on the
/// store's channel and sends its own: recorded announcements replayed, bare "read it" announcements, and a recorded
/// sealed value presented at the row's current generation. None of them revives a session that ended, nor makes an
/// instance renew from a stale record (which would send a spent refresh token and sign the user out everywhere).
@Suite(
    "Announcements replayed by a login-only role", .serialized,
    .enabled(if: BFFPostgres.shouldRun, BFFPostgres.skipNote))
struct AnnouncementReplayTests {
    /// The hex digest of the store key the session `cookie` names, as the store announces it.
    static func digest(ofSession cookie: String, deployment: BFFPostgres.Deployment, emulator: AuthEmulator) throws
        -> String
    {
        let id = try #require(SealedCookies.id(fromCookie: cookie, secret: deployment.key))
        let key =
            "sessionkit.session|\(emulator.issuer.absoluteString)|\(AuthEmulator.Client.confidentialID)|\(id.account)"
        return SecureStoreChange.digest(ofKey: key)
    }

    /// The announcements heard for `digest` that carry a generation, in order, split at their colons.
    static func announced(_ stranger: StrangerRole, digest: String) -> [[String]] {
        stranger.payloads.map { $0.split(separator: ":", omittingEmptySubsequences: false).map(String.init) }
            .filter { $0.count >= 6 && $0[1] == digest }
    }

    @Test("replays and forged generations from a login-only role neither revive nor end a session on either instance")
    func replays() async throws {
        // Access tokens live 32 s and the back end renews below 30 s left: a forwarded call renews after 2 s.
        try await LiveEmulator.with(LiveEmulator.configuration { $0.lifetimes.accessToken = 32 }) { emulator in
            let deployment = BFFPostgres.Deployment()
            let folder = try TemporaryFolder(prefix: "sessionkit-bff")
            defer { folder.remove() }
            let keyFile = try ProcessInstance.keyFile(for: deployment, in: folder)
            let stranger = try await StrangerRole.start()
            let a = try await ProcessInstance.start(emulator: emulator, deployment: deployment, keyFile: keyFile)
            let b = try await ProcessInstance.start(
                emulator: emulator, deployment: deployment, keyFile: keyFile, publicURL: a.url)
            let browser = CookieBrowser()
            let api: [(String, String)] = [("X-CSRF", "1")]
            do {
                #expect(try await browser.signIn(through: a).status == 303)
                let cookie = try #require(browser.cookies["sessionkit"])
                let digest = try Self.digest(ofSession: cookie, deployment: deployment, emulator: emulator)
                #expect(try await browser.get(b.at("/auth/me")).status == 200, "B holds the session")
                let signIn = try #require(Self.announced(stranger, digest: digest).first, "the sign-in was heard")

                // A renews (rotating the refresh token); the role then empties B's copy and presents the sign-in's
                // sealed value at the row's current generation.
                try await Task.sleep(for: .milliseconds(2_500))
                try await emulator.controls.resetRequestCounts()
                #expect(try await browser.get(a.at("/api/userinfo"), headers: api).status == 200)
                #expect(try await emulator.controls.requestCounts()[.refreshToken] == 1, "A renewed")
                let current = try #require(Self.announced(stranger, digest: digest).last)[3]
                try await stranger.notify("\(deployment.service):\(digest)")
                var forged = signIn
                forged[3] = current
                try await stranger.notify(forged.joined(separator: ":"))
                try await Task.sleep(for: .milliseconds(200))
                // B renews next (its token is due too): from the stored record, with the live refresh token.
                let onB = try await browser.get(b.at("/api/userinfo"), headers: api)
                #expect(onB.status == 200, "B renewed from a forged record: \(onB.status) \(onB.text)")
                let onA = try await browser.get(a.at("/api/userinfo"), headers: api)
                #expect(onA.status == 200, "the session ended everywhere: \(onA.status) \(onA.text)")

                // Another session, used on B, then signed out on A.
                let other = CookieBrowser()
                defer { Task { await other.shutdown() } }
                #expect(try await other.signIn(through: a).status == 303)
                let otherCookie = try #require(other.cookies["sessionkit"])
                let otherDigest = try Self.digest(ofSession: otherCookie, deployment: deployment, emulator: emulator)
                #expect(try await other.get(b.at("/auth/me")).status == 200, "B holds the session")
                let logout = try await other.send(.POST, a.at("/auth/logout"), headers: [("Origin", a.urlString)])
                #expect(logout.status == 200)
                other.setCookie("sessionkit", otherCookie)  // the old cookie, as a stolen copy would be
                // B is not asked meanwhile: it keeps the session's manager, which the logout's announcement reached.
                try await Task.sleep(for: .milliseconds(300))

                // Every signed-in record announced before the logout, replayed after a bare announcement: B and A
                // still refuse the old cookie.
                let recorded = Self.announced(stranger, digest: otherDigest)
                #expect(recorded.count >= 2, "the sign-in and the logout were heard")
                for payload in recorded.dropLast() {
                    try await stranger.notify("\(deployment.service):\(otherDigest)")
                    try await stranger.notify(payload.joined(separator: ":"))
                }
                try await Task.sleep(for: .milliseconds(300))
                for instance in [b, a] {
                    let me = try await other.get(instance.at("/auth/me"))
                    #expect(me.status == 401, "a replay revived the session on \(instance.url): \(me.text)")
                    let call = try await other.get(instance.at("/api/userinfo"), headers: api)
                    #expect(call.status == 401, "a replay revived the session on \(instance.url): \(call.text)")
                }
            } catch {
                Issue.record(error)
            }
            await browser.shutdown()
            await a.stop()
            await b.stop()
            await stranger.stop()
        }
    }
}
