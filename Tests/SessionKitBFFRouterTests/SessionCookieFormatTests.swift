import Crypto
import Foundation
import HTTPTypes
import SessionKitServer
import SessionKitTestSupport
import SessionKitTesting
import Testing

@testable import SessionKitBFF

/// The sealed session cookie's forms (docs/stored-formats.md): version 1 (f0f4c05, no version) and version 2 read,
/// version 1 still written (the previous release reads only that); a newer version keeps the session and its cookie
/// and says so.
@Suite("Session cookie: every form read, a newer one kept")
struct SessionCookieFormatTests {
    /// The cookie name the fixtures were sealed for (a back end on http).
    static let name = "sessionkit"
    static let sealer = CookieSealer(secret: SymmetricKey(data: StoredFormatFixtures.keyBytes))
    /// The session the cookie fixtures name.
    static let id = "fixture-session-id-0123456789-abcdefghijklm"
    static let createdAt = Date(timeIntervalSince1970: 1_795_291_200)
    static let seenAt = Date(timeIntervalSince1970: 1_795_291_260)

    static func fixture(_ name: String) throws -> String {
        String(decoding: try StoredFormatFixtures.data(name), as: UTF8.self).trimmingCharacters(
            in: .whitespacesAndNewlines)
    }

    @Test(
        "each sealed cookie fixture opens into its session",
        arguments: ["bff-session-cookie-f0f4c05.txt", "bff-session-cookie-v2.txt"])
    func reads(fixture: String) throws {
        let plain = try #require(Self.sealer.open(try Self.fixture(fixture), name: Self.name))
        let cookie = try #require(SessionCookie(plaintext: plain, lifetime: 3_600, idleTimeout: 600))
        #expect(cookie.id == (try SessionID(validating: Self.id)))
        #expect(cookie.createdAt == Self.createdAt)
        #expect(cookie.seenAt == Self.seenAt)
        #expect(SessionCookie.newerVersion(plaintext: plain) == nil)
        // Written again in the form this release writes (version 1, which the previous release reads), and read
        // back the same.
        #expect(cookie.plaintext == Data("\(Self.id) 1795291200 1795291260".utf8))
        #expect(SessionCookie(plaintext: cookie.plaintext, lifetime: 3_600, idleTimeout: 600) == cookie)
    }

    @Test("the form the cookie writes is version 1's fixture (regenerated with SESSIONKIT_WRITE_FIXTURES=1)")
    func currentForm() throws {
        let id = try SessionID(validating: Self.id)
        let cookie = SessionCookie(id: id, createdAt: Self.createdAt, seenAt: Self.seenAt, lifetime: 1, idleTimeout: 1)
        if ProcessInfo.processInfo.environment["SESSIONKIT_WRITE_FIXTURES"] == "1" {
            let legacy = Data("\(Self.id) 1795291200 1795291260".utf8)
            let second = Data("2 \(Self.id) 1795291200 1795291260".utf8)
            for (file, plain) in [("bff-session-cookie-f0f4c05.txt", legacy), ("bff-session-cookie-v2.txt", second)] {
                let value = Self.sealer.seal(plain, name: Self.name) + "\n"
                try Data(value.utf8).write(to: URL(fileURLWithPath: StoredFormatFixtures.folder + "/" + file))
            }
        }
        let plain = try #require(Self.sealer.open(try Self.fixture("bff-session-cookie-f0f4c05.txt"), name: Self.name))
        #expect(plain == cookie.plaintext)
    }

    @Test("a newer version is told apart from damage; a session id is never taken for a version")
    func newerVersion() throws {
        #expect(SessionCookie.newerVersion(plaintext: Data("3 \(Self.id) 1 2".utf8)) == 3)
        #expect(SessionCookie.newerVersion(plaintext: Data("12 anything".utf8)) == 12)
        #expect(SessionCookie(plaintext: Data("3 \(Self.id) 1 2".utf8), lifetime: 1, idleTimeout: 1) == nil)
        for older in ["2 \(Self.id) 1 2", "1 x", "\(Self.id) 1 2", "", "99999999999 x"] {
            #expect(SessionCookie.newerVersion(plaintext: Data(older.utf8)) == nil, "\(older)")
        }
    }

    @Test("a cookie of a newer version: 503 that says so, the cookie and the session kept")
    func newerCookieKept() async throws {
        try await LiveEmulator.with(RouterBFF.emulatorConfiguration()) { emulator in
            try await RouterBFF.test(emulator: emulator) { app in
                let browser = app.browser()
                #expect(try await browser.signIn().status == 303)
                let value = try #require(browser.cookies["sessionkit"])
                let opened = try #require(CookieSealer(secret: app.cookieSecret).open(value, name: "sessionkit"))
                let id = try #require(SessionCookie(plaintext: opened, lifetime: 60, idleTimeout: 60)?.id)
                let now = Int64(Date().timeIntervalSince1970)
                let newer = CookieSealer(secret: app.cookieSecret).seal(
                    Data("3 \(id.rawValue) \(now) \(now) more-fields".utf8), name: "sessionkit")
                for (method, path) in [(HTTPRequest.Method.get, "/auth/me"), (.post, "/auth/logout")] {
                    let answer = try await browser.send(
                        method, path, headers: [("Cookie", "sessionkit=\(newer)"), ("X-CSRF", "1")], cookies: false)
                    #expect(answer.status == 503, "\(path)")
                    #expect(answer.text.contains("session_written_by_newer_version"), "\(path)")
                    #expect(answer.setCookies.isEmpty, "\(path): the cookie is not cleared")
                }
                #expect(try await browser.get("/auth/me").status == 200, "the session is still there")
            }
        }
    }
}
