import Crypto
import Foundation
import SessionKitPostgres
import SessionKitServer

@testable import SessionKitBFF

/// Session cookies as a back end for front ends seals them, for tests that hold a session id (created straight in
/// the store) and need the cookie a browser would have, or the reverse.
enum SealedCookies {
    /// The cookie secret every in-process instance of this test process shares (as instances of one app do).
    static let inProcessSecret = SymmetricKey(size: .bits256)

    /// The value of the session cookie `name` for `id`, sealed under `secret` (a process instance derives its
    /// secret from the deployment's sealing key: pass `deployment.key`).
    static func session(
        _ id: SessionID, secret: SymmetricKey = inProcessSecret, createdAt: Date = Date(), seenAt: Date = Date(),
        name: String = "sessionkit"
    ) -> String {
        let cookie = SessionCookie(id: id, createdAt: createdAt, seenAt: seenAt, lifetime: 1, idleTimeout: 1)
        return CookieSealer(secret: secret).seal(cookie.plaintext, name: name)
    }

    /// `Cookie: sessionkit=<sealed id>`, as a header for ``CookieBrowser/send``.
    static func header(_ id: SessionID, secret: SymmetricKey = inProcessSecret) -> [(String, String)] {
        [("Cookie", "sessionkit=\(session(id, secret: secret))")]
    }

    /// The session id inside a sealed session cookie's value.
    static func id(
        fromCookie value: String?, secret: SymmetricKey = inProcessSecret, name: String = "sessionkit"
    ) -> SessionID? {
        guard let value, let plain = CookieSealer(secret: secret).open(value, name: name) else { return nil }
        return SessionCookie(plaintext: plain, lifetime: 1, idleTimeout: 1)?.id
    }
}
