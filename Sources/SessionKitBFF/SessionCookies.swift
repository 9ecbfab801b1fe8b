import Foundation
import HTTPTypes
import Hummingbird
import SessionKitServer

/// The two cookies a back end for front ends sets: the session id, and the short-lived sign-in binding that ties
/// a callback to the browser that started the sign-in (no login CSRF).
///
/// Both are `HttpOnly; SameSite=Lax; Path=/`, and `Secure` with the `__Host-` prefix when the public URL is
/// `https`, so no subdomain can set or read them.
struct SessionCookies: Sendable {
    /// The session cookie's full name: `__Host-sessionkit` over https, `sessionkit` otherwise.
    let sessionName: String
    /// The sign-in binding cookie's full name.
    let signInName: String
    private let attributes: String

    init(configuration: BackendForFrontend.Configuration) {
        let prefix = configuration.isSecure ? "__Host-" : ""
        sessionName = prefix + configuration.cookieName
        signInName = prefix + configuration.cookieName + "-signin"
        attributes = "; Path=/; HttpOnly; SameSite=Lax" + (configuration.isSecure ? "; Secure" : "")
    }

    /// The session id the request carries, if it has a well-formed one.
    func sessionID(in request: Request) -> SessionID? {
        value(named: sessionName, in: request).flatMap { try? SessionID(validating: $0) }
    }

    /// The sign-in binding the request carries, if any.
    func signInBinding(in request: Request) -> String? {
        value(named: signInName, in: request)
    }

    /// `Set-Cookie` for a new session: a session cookie (no `Max-Age`), gone when the browser closes or the
    /// session ends at the server, whichever is first.
    func setSession(_ id: SessionID) -> String { "\(sessionName)=\(id.rawValue)\(attributes)" }

    /// `Set-Cookie` that deletes the session cookie.
    var clearSession: String { "\(sessionName)=\(attributes); Max-Age=0" }

    /// `Set-Cookie` for the sign-in binding, valid as long as a sign-in may take.
    func setSignIn(_ binding: String, lifetime: TimeInterval) -> String {
        "\(signInName)=\(binding)\(attributes); Max-Age=\(Int(lifetime))"
    }

    /// `Set-Cookie` that deletes the sign-in binding.
    var clearSignIn: String { "\(signInName)=\(attributes); Max-Age=0" }

    /// The value of the cookie `name` in the request's `Cookie` headers (the first, as browsers send the most
    /// specific first).
    private func value(named name: String, in request: Request) -> String? {
        for header in request.headers[values: .cookie] {
            for pair in header.split(separator: ";") {
                let trimmed = pair.drop { $0 == " " }
                guard let equals = trimmed.firstIndex(of: "=") else { continue }
                if trimmed[..<equals] == name { return String(trimmed[trimmed.index(after: equals)...]) }
            }
        }
        return nil
    }
}
