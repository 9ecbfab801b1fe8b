import Foundation
import SessionKitSupport

/// The emulator's plain HTML pages: sign-in, device activation, results and errors.
enum HTMLPages {
    static func escape(_ text: String) -> String {
        HTMLEscaping.escaped(text)
    }

    static func page(_ title: String, _ body: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>\(escape(title)) · AuthEmulator</title>
        <style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem}
        label,input,button{display:block;width:100%;margin:.4rem 0}.error{color:#b00020}</style></head>
        <body><h1>\(escape(title))</h1>
        \(body)
        </body></html>
        """
    }

    static func hidden(_ fields: [(String, String)]) -> String {
        fields.map { "<input type=\"hidden\" name=\"\(escape($0.0))\" value=\"\(escape($0.1))\">" }.joined()
    }

    /// The sign-in form; it posts the credentials with the authorize parameters to `/u/login`. Its Cancel
    /// button (`action=deny`) sends the user back with `access_denied`.
    static func signIn(carrying fields: [(String, String)], error: String? = nil, clientName: String) -> String {
        let message = error.map { "<p class=\"error\" role=\"alert\">\(escape($0))</p>" } ?? ""
        return page(
            "Sign in",
            """
            <p>to continue to \(escape(clientName))</p>\(message)
            <form method="post" action="/u/login">\(hidden(fields))
            <label>Email <input name="username" type="email" autocomplete="username" required></label>
            <label>Password <input name="password" type="password" autocomplete="current-password" required></label>
            <button type="submit">Continue</button>
            <button type="submit" name="action" value="deny" formnovalidate>Cancel</button></form>
            """
        )
    }

    /// The device activation form (RFC 8628 §3.3).
    static func activate(userCode: String?, error: String? = nil) -> String {
        let message = error.map { "<p class=\"error\" role=\"alert\">\(escape($0))</p>" } ?? ""
        return page(
            "Activate your device",
            """
            \(message)<form method="post" action="/activate">
            <label>Code <input name="user_code" value="\(escape(userCode ?? ""))" required></label>
            <label>Email <input name="username" type="email" autocomplete="username"></label>
            <label>Password <input name="password" type="password" autocomplete="current-password"></label>
            <button type="submit" name="action" value="approve">Approve</button>
            <button type="submit" name="action" value="deny">Deny</button></form>
            """
        )
    }

    /// What `/oidc/logout` shows when it has nowhere to send the browser back to.
    static func signedOut() -> String {
        message("Signed out", "You have been signed out. You can close this window.")
    }

    static func message(_ title: String, _ text: String) -> String {
        page(title, "<p>\(escape(text))</p>")
    }
}
