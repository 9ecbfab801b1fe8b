import SessionKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `sessionctl token` when there is no usable session: kubectl's exec plugin may sign in at a terminal
/// (``KubernetesExecInfo``); everything else says which command signs in.
extension Token {
    /// The token `api` asks for (the session's own without one), renewed first when needed.
    static func credentials(_ api: APITokenRequest?, _ session: SessionManager, minTTL: TimeInterval)
        async throws(SessionKitError) -> Credentials
    {
        guard let api else { return try await session.credentials(minTTL: minTTL) }
        return try await api.credentials(session, minTTL: minTTL)
    }

    /// The token, as ``credentials(_:_:minTTL:)`` gets it; with `signingIn`, after a sign-in when there is no
    /// session (or one that cannot be renewed).
    static func credentials(_ api: APITokenRequest?, _ context: SessionContext, minTTL: TimeInterval, signingIn: Bool)
        async throws(SessionKitError) -> Credentials
    {
        do {
            return try await credentials(api, context.session, minTTL: minTTL)
        } catch {
            guard signingIn, error.code == .signInRequired else { throw error }
        }
        try await signInForKubectl(context)
        return try await credentials(api, context.session, minTTL: minTTL)
    }

    /// Signs in as `sessionctl login` does by default (the browser, with PKCE), and stores the session. Everything
    /// it says goes to standard error: kubectl reads the plugin's standard output, and shows its standard error.
    static func signInForKubectl(_ context: SessionContext) async throws(SessionKitError) {
        let profile = context.resolved.profile
        Terminal.err("sessionctl: kubectl needs a sign-in for profile '\(profile)'")
        let signIn = BrowserSignIn(
            context: context, redirect: try .saved(in: context.resolved.settings), open: true, timeout: 300)
        let credentials = try await Terminal.withStandardOutputOnStandardError { () async throws(SessionKitError) in
            try await signIn.run()
        }
        let who = credentials.idTokenClaims.map { $0.email ?? $0.name ?? $0.subject ?? "" } ?? ""
        Terminal.err("\(Terminal.good("Signed in")) \(who.isEmpty ? "" : "as \(who) ")(profile '\(profile)').")
    }

    /// `error` (a sign-in is needed) with the command that signs in; for kubectl's exec plugin without a terminal,
    /// also how to let kubectl sign in.
    static func advising(_ error: SessionKitError, profile: String, format: Format, info: KubernetesExecInfo?)
        -> SessionKitError
    {
        var message = error.message
        // SessionKit's own "...; sign in" gives way to the command that does it.
        for ending in ["; sign in again", "; sign in"] where message.hasSuffix(ending) {
            message.removeLast(ending.count)
            break
        }
        message += "; sign in with: sessionctl login --profile \(ShellWord.quoted(profile))"
        if format == .execCredential, info?.interactive == false {
            message +=
                " (kubectl ran sessionctl without a terminal; with the user sessionctl kubeconfig --interactive "
                + "prints, kubectl run at a terminal lets it sign in)"
        }
        return SessionKitError(
            code: error.code, message: message, oauthError: error.oauthError,
            oauthErrorDescription: error.oauthErrorDescription, httpStatus: error.httpStatus, underlyingError: error)
    }
}
