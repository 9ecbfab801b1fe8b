import ArgumentParser
import SessionKit
import SessionKitSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `sessionctl token`: prints a fresh access token for scripts; the one command that prints a token.
struct Token: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print an access token valid for at least --min-ttl seconds, renewing silently when needed.",
        discussion: "Never interactive: when a sign-in is needed it exits 1 and names the sessionctl login to run. "
            + "--output exec-credential prints a Kubernetes ExecCredential for kubectl's exec plugin (with "
            + "--id-token, the ID token, as Kubernetes' OpenID Connect authenticator takes it; sessionctl kubeconfig "
            + "prints the kubeconfig user); there, when kubectl says a person is at the terminal "
            + "(KUBERNETES_EXEC_INFO's spec.interactive, with interactiveMode IfAvailable) and there is no session, "
            + "it signs in as sessionctl login does, on standard error, and then prints the credential. "
            + "--audience A [--scope S] prints an access token for API A from the same session, renewed with the "
            + "session's refresh token (Auth0's Multi-Resource Refresh Token): one sign-in, several APIs."
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case plain, json
        case execCredential = "exec-credential"
    }

    @OptionGroup var options: GlobalOptions

    @Option(name: .customLong("min-ttl"), help: "Seconds the token must stay valid.")
    var minTTL: Int = 60

    @Flag(name: .customLong("id-token"), help: "Print the ID token instead of the access token.")
    var idToken = false

    @Flag(help: "Print JSON: token, token_type, expires_at (same as --output json).")
    var json = false

    @Option(help: "Output format: plain, json or exec-credential.")
    var output: Format = .plain

    @Option(
        name: .customLong("dpop-proof"), parsing: .upToNextOption,
        help: ArgumentHelp(
            "Print the two header lines a request to URL with METHOD needs: 'Authorization: DPoP <token>' and "
                + "'DPoP: <proof>' (or 'Authorization: Bearer <token>' for a token that is not DPoP-bound).",
            valueName: "METHOD URL"))
    var dpopProof: [String] = []

    @Option(
        name: .customLong("dpop-nonce"),
        help: "With --dpop-proof: the nonce the server asked for (its DPoP-Nonce header after a use_dpop_nonce answer)."
    )
    var dpopNonce: String?

    func validate() throws {
        if dpopNonce != nil && dpopProof.isEmpty {
            throw ValidationError("--dpop-nonce goes with --dpop-proof METHOD URL")
        }
        if !dpopProof.isEmpty {
            guard dpopProof.count == 2, URL(string: dpopProof[1])?.host != nil else {
                throw ValidationError(
                    "--dpop-proof takes a method and an absolute URL, such as GET https://api.example.com/x")
            }
            if idToken || json || output != .plain {
                throw ValidationError(
                    "--dpop-proof prints header lines; it goes with neither --id-token nor --json/--output")
            }
        }
        if idToken, options.audience != nil || options.scope != nil {
            throw ValidationError(
                "--id-token prints the session's ID token; it goes with neither --audience nor --scope")
        }
    }

    func run() async throws {
        var arguments = TokenArguments(minTTL: minTTL, idToken: idToken, json: json, output: output)
        let flags = options.flags
        for option in SettingOption.allCases { arguments.options[option] = flags[option] }
        arguments.clientSecretFile = flags.clientSecretFile
        arguments.clientSecretStdin = flags.clientSecretStdin
        arguments.dpopProof = dpopProof
        arguments.dpopNonce = dpopNonce
        try await Self.printToken(arguments)
    }

    /// Prints the token `arguments` ask for, renewing it when needed, and reports an error as every command does.
    /// `local` is the fast path's context (``printLocalToken(_:)``) when it found the token due: the renewal goes
    /// on from what it opened and read.
    static func printToken(_ arguments: TokenArguments, local: SessionContext? = nil) async throws {
        let profile = arguments.flags.profileName
        try await reporting(profile: profile) {
            do {
                try await printRenewing(arguments, local: local)
            } catch let error as SessionKitError where error.code == .signInRequired {
                throw Self.advising(error, profile: profile, format: arguments.format, info: .current)
            }
        }
    }

    /// Prints the token, renewing it when needed; signs in first when it must and kubectl allows it.
    private static func printRenewing(_ arguments: TokenArguments, local: SessionContext?) async throws {
        let format = arguments.format
        let minTTL = arguments.minTTL
        // Quiet about a key-file fallback: kubectl shows a plugin's stderr on every command; login and
        // status warn about it where a person looks.
        let (api, sessionFlags) = try APITokenRequest.split(arguments.flags)
        let context = try local?.sending() ?? SessionContext.make(sessionFlags, warnOnFallback: false)
        var credentials = try await Self.credentials(
            api, context, minTTL: TimeInterval(minTTL),
            signingIn: KubernetesExecInfo.allowsSignIn(format: format, info: .current))
        if arguments.idToken, let claims = credentials.idTokenClaims,
            claims.isExpired(leeway: -TimeInterval(minTTL))
        {
            credentials = try await context.session.renew()
        }
        // Said on the renewing path only: the fast path serves the same fresh token without a word.
        if credentials.livesShorter(than: TimeInterval(minTTL)), let expiresAt = credentials.expiresAt {
            let lifetime = Int(expiresAt.timeIntervalSince(credentials.receivedAt).rounded())
            Terminal.err(
                "note: the provider's access tokens live \(lifetime) s, less than --min-ttl \(minTTL); "
                    + "printing a fresh one")
        }
        if arguments.dpopProof.count == 2, let url = URL(string: arguments.dpopProof[1]) {
            if let nonce = arguments.dpopNonce { context.provider.useDPoPNonce(nonce, for: url) }
            let headers = try await context.provider.authorizationHeaders(
                for: credentials, method: arguments.dpopProof[0].uppercased(), url: url)
            Terminal.out(headers.map { "\($0.name): \($0.value)" }.joined(separator: "\n"))
            return
        }
        guard let text = try Self.text(of: credentials, idToken: arguments.idToken, format: format) else {
            throw SessionKitError(
                code: .signInRequired, message: "the session has no ID token; sign in with the openid scope")
        }
        Terminal.out(text)
    }

    /// What the fast path did with `sessionctl token`'s arguments.
    enum LocalAnswer {
        /// It printed the token, valid for `--min-ttl`, from the store: no request, no task.
        case printed
        /// The token must be renewed (or there is no session): ``printToken(_:local:)`` goes on from this
        /// context, which opened the store and read the record.
        case renew(SessionContext)
        /// Anything else (an error, a case the fast path does not know): the usual path, ArgumentParser's,
        /// does the whole job and reports errors as usual.
        case usual
    }

    /// Prints the token when the store already holds one valid for `--min-ttl`, synchronously. When it must be
    /// renewed, hands over what it built (``LocalAnswer/renew(_:)``) instead of leaving the next path to open
    /// the store, derive its key and read the record again.
    static func printLocalToken(_ arguments: TokenArguments) -> LocalAnswer {
        let minTTL = TimeInterval(arguments.minTTL)
        guard let (api, sessionFlags) = try? APITokenRequest.split(arguments.flags), api == nil || !arguments.idToken,
            let context = try? SessionContext.make(sessionFlags, warnOnFallback: false, readsStoredSecret: false)
        else { return .usual }
        let local: Credentials?
        do {
            local = try APITokenRequest.local(api, context.session, minTTL: minTTL)
        } catch {
            return .usual
        }
        // Due for renewal, or no session: the renewing path says which.
        guard let credentials = local else { return .renew(context) }
        // No ID token, or one that expires within --min-ttl: the renewing path renews or reports it.
        if arguments.idToken, credentials.idTokenClaims?.isExpired(leeway: -minTTL) != false { return .renew(context) }
        guard let text = try? Self.text(of: credentials, idToken: arguments.idToken, format: arguments.format)
        else { return .usual }
        Terminal.out(text)
        return .printed
    }

    /// The access token (or, with `idToken`, the ID token) of `credentials` in `format`; `nil` when there is
    /// no ID token to print.
    static func text(of credentials: Credentials, idToken: Bool, format: Format) throws -> String? {
        guard let token = idToken ? credentials.idToken : credentials.accessToken else { return nil }
        return try render(
            token.unsafeRawValue,
            type: idToken ? "id_token" : credentials.tokenType,
            expiry: idToken ? credentials.idTokenClaims?.expiresAt : credentials.expiresAt,
            format: format
        )
    }

    /// The token in `format`; `type` is the `token_type` printed by `--json`.
    static func render(_ token: String, type: String, expiry: Date?, format: Format) throws -> String {
        // The date formatter costs more than the rest of this function: only the JSON formats use it.
        let value: JSONValue
        switch format {
        case .plain:
            return token
        case .json:
            var object: [String: JSONValue] = [
                "token": .string(token), "token_type": .string(type),
            ]
            if let expiry { object["expires_at"] = .string(expiry.formatted(.iso8601)) }
            value = .object(object)
        case .execCredential:
            var status: [String: JSONValue] = ["token": .string(token)]
            if let expiry { status["expirationTimestamp"] = .string(expiry.formatted(.iso8601)) }
            value = [
                "apiVersion": "client.authentication.k8s.io/v1", "kind": "ExecCredential", "status": .object(status),
            ]
        }
        return String(decoding: try value.jsonData(), as: UTF8.self)
    }
}
