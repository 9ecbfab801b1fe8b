import Crypto
import Foundation
import Hummingbird
import SessionKit
import SessionKitServer
import SessionKitSupport

/// The cookies a back end for front ends sets, sealed (``CookieSealer``) so that only its instances can make or
/// read them: the session cookie, and one short-lived sign-in cookie per sign-in under way, which ties the
/// callback to the browser (and the tab's sign-in) that started it.
///
/// All are `HttpOnly; SameSite=Lax; Path=/`, and `Secure` with the `__Host-` prefix when the public URL is
/// `https`, so no subdomain can set or read them. Cookies are read from the `Cookie` fields by ``CookieHeader``,
/// which finds one cookie without parsing the others.
struct SessionCookies: Sendable {
    /// The session cookie's full name: `__Host-sessionkit` over https, `sessionkit` otherwise.
    let sessionName: String
    private let prefix: String
    private let isSecure: Bool
    private let sealer: CookieSealer
    private let lifetime: TimeInterval
    private let idleTimeout: TimeInterval
    /// The session cookies opened lately, by value.
    let opened = OpenedCookies(capacity: 4_096)

    init(configuration: BackendForFrontend.Configuration, secret: SymmetricKey) {
        prefix = (configuration.isSecure ? "__Host-" : "") + configuration.cookieName
        sessionName = prefix
        isSecure = configuration.isSecure
        sealer = CookieSealer(secret: secret)
        lifetime = configuration.sessionLifetime
        idleTimeout = configuration.idleTimeout
    }

    // MARK: The session cookie

    /// The session the request's cookie names, if it carries one this back end sealed; whether it is still
    /// within its lifetime is ``SessionCookie/ended(at:)``'s to say.
    func session(in request: Request) -> SessionCookie? {
        CookieHeader.value(named: sessionName, in: request.headers).flatMap { session(value: $0) }
    }

    /// The session a session cookie's value names, if this back end sealed it.
    func session(value: String) -> SessionCookie? {
        if let known = opened.cookie(for: value) { return known }
        guard let plain = sealer.open(value, name: sessionName),
            let cookie = SessionCookie(plaintext: plain, lifetime: lifetime, idleTimeout: idleTimeout)
        else { return nil }
        opened.remember(cookie, for: value)
        return cookie
    }

    /// The version of the session cookie in the request when a newer back end sealed it (during an upgrade, or
    /// after a downgrade), or `nil`: such a cookie is kept, never cleared, and the session with it.
    func newerSessionVersion(in request: Request) -> Int? {
        guard let value = CookieHeader.value(named: sessionName, in: request.headers),
            let plain = sealer.open(value, name: sessionName)
        else { return nil }
        return SessionCookie.newerVersion(plaintext: plain)
    }

    /// `Set-Cookie` for `session`, seen at `seenAt`: a browser-session cookie (no `Max-Age`), gone when the
    /// browser closes or the session ends at the server, whichever is first.
    func setSession(_ session: SessionCookie) -> String {
        cookie(sessionName, sealer.seal(session.plaintext, name: sessionName), maxAge: nil)
    }

    /// `Set-Cookie` that deletes the session cookie.
    var clearSession: String { cookie(sessionName, "", maxAge: 0) }

    // MARK: Sign-in cookies

    /// The name of the sign-in cookie for the sign-in started with `state`: one per sign-in, so that two tabs
    /// signing in at once do not overwrite each other's.
    func signInName(state: String) -> String {
        let digest = SHA256.hash(data: Data(state.utf8))
        return prefix + "-signin-" + Base64URL.encode(Data(digest.prefix(9)))
    }

    /// `Set-Cookie` that carries `signIn`, sealed, for as long as a sign-in may take.
    func setSignIn(_ signIn: PendingSignIn, lifetime: TimeInterval) -> String {
        let name = signInName(state: signIn.state)
        return cookie(name, sealer.seal(signIn.encoded, name: name), maxAge: Int(lifetime))
    }

    /// The sign-in started with `state` in this browser, if its cookie is there and was sealed here.
    func signIn(state: String, in request: Request) -> PendingSignIn? {
        let name = signInName(state: state)
        guard let value = CookieHeader.value(named: name, in: request.headers),
            let plain = sealer.open(value, name: name)
        else { return nil }
        return PendingSignIn(encoded: plain)
    }

    /// `Set-Cookie` lines that delete this browser's sign-in cookies but the `keeping` newest that are still
    /// within `lifetime` at `now`: a browser (or a script in it) that starts sign-in after sign-in without
    /// finishing them would otherwise pile up cookies until its requests outgrow the server's header limit.
    func clearingSignIns(in request: Request, keeping: Int, lifetime: TimeInterval, now: Date) -> [String] {
        let signInPrefix = prefix + "-signin-"
        var live: [(name: String, createdAt: Date)] = []
        var cleared: [String] = []
        for (name, value) in CookieHeader.pairs(named: signInPrefix, in: request.headers) {
            if let plain = sealer.open(value, name: name), let pending = PendingSignIn(encoded: plain),
                now.timeIntervalSince(pending.createdAt) <= lifetime
            {
                live.append((name, pending.createdAt))
            } else {
                cleared.append(name)
            }
        }
        live.sort { $0.createdAt > $1.createdAt }
        cleared += live.dropFirst(max(keeping, 0)).map(\.name)
        return Set(cleared).sorted().map { cookie($0, "", maxAge: 0) }
    }

    /// `Set-Cookie` that deletes the sign-in cookie of `state`.
    func clearSignIn(state: String) -> String { cookie(signInName(state: state), "", maxAge: 0) }

    private func cookie(_ name: String, _ value: String, maxAge: Int?) -> String {
        Cookie(
            name: name, value: value, maxAge: maxAge, path: "/", secure: isSecure, httpOnly: true, sameSite: .lax
        ).description
    }
}
