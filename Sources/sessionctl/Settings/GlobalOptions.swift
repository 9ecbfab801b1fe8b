import ArgumentParser
import SecureStore
import SessionKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Options every command shares: which profile, and settings that override it.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: "The profile to use (env SESSIONCTL_PROFILE; default: default).")
    var profile: String?

    @Option(name: .long, help: "The provider's issuer URL (env SESSIONCTL_ISSUER).")
    var issuer: String?

    @Option(name: .customLong("client-id"), help: "The client id (env SESSIONCTL_CLIENT_ID).")
    var clientID: String?

    @Option(
        name: .customLong("client-secret-file"),
        help: ArgumentHelp(
            "Read a confidential client's secret from FILE (mode 600; env SESSIONCTL_CLIENT_SECRET holds it "
                + "otherwise). `configure` saves it in the secure store.",
            valueName: "FILE"))
    var clientSecretFile: String?

    @Flag(name: .customLong("client-secret-stdin"), help: "Read a confidential client's secret from standard input.")
    var clientSecretStdin = false

    @Option(
        name: .customLong("client-auth"),
        help: ArgumentHelp(
            "How the client secret is sent: auto (as discovery lists), basic or post (env SESSIONCTL_CLIENT_AUTH; "
                + "default: auto).",
            valueName: "auto|basic|post"))
    var clientAuth: String?

    @Option(name: .long, help: "The API audience to request tokens for (env SESSIONCTL_AUDIENCE).")
    var audience: String?

    @Option(name: .long, help: "The scope to request (env SESSIONCTL_SCOPE).")
    var scope: String?

    @Option(
        name: .customLong("sessions-dir"), help: "The folder that holds the sessions (env SESSIONCTL_SESSIONS_DIR).")
    var sessionsDirectory: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Where the session key lives: auto (the keyring if it works, else a key file, with a warning), "
                + "keyring (fail instead of falling back), kernel (the Linux kernel keyring: never on disk, gone "
                + "after a restart; for headless machines) or file (env SESSIONCTL_STORE; default: auto).",
            valueName: "auto|keyring|kernel|file"
        )
    )
    var store: String?

    @Option(
        name: .customLong("ca-file"),
        help: ArgumentHelp(
            "Trust the certificate authority in this PEM file besides the system's, for a provider whose certificate "
                + "a private authority signed (env SESSIONCTL_CA_FILE; SSL_CERT_FILE is trusted too; `configure` "
                + "saves it). Proxies come from HTTPS_PROXY, HTTP_PROXY and NO_PROXY.",
            valueName: "FILE"))
    var caFile: String?

    /// These options as plain values.
    var flags: SettingFlags {
        SettingFlags(
            profile: profile, issuer: issuer, clientID: clientID, clientSecretFile: clientSecretFile,
            clientSecretStdin: clientSecretStdin, clientAuth: clientAuth, audience: audience, scope: scope,
            sessionsDirectory: sessionsDirectory, store: store, caFile: caFile)
    }

    /// The profile's name after flags and environment.
    var profileName: String { flags.profileName }

    /// The settings in force: flags over environment over the saved profile.
    func resolved() throws(SessionKitError) -> ResolvedSettings { try flags.resolved() }

    /// The store policy from `--store`, else `SESSIONCTL_STORE`, else automatic.
    func storePolicy() throws(SessionKitError) -> StoreSelection.Policy { try flags.storePolicy() }
}

/// The settings flags of ``GlobalOptions`` as plain values: what `token`'s fast path fills in without
/// ArgumentParser, whose option types cost that path a protocol-conformance scan to build (see `Benchmarks/cli.sh`).
struct SettingFlags {
    var profile: String?
    var issuer: String?
    var clientID: String?
    var clientSecretFile: String?
    var clientSecretStdin = false
    var clientAuth: String?
    var audience: String?
    var scope: String?
    var sessionsDirectory: String?
    var store: String?
    var caFile: String?

    /// The profile's name after flags and environment.
    var profileName: String {
        profile ?? environment("SESSIONCTL_PROFILE") ?? "default"
    }

    /// The settings in force: flags over environment over the saved profile.
    func resolved() throws(SessionKitError) -> ResolvedSettings {
        let settings = self.settings(over: try ConfigFile.load().profiles[profileName] ?? ProfileSettings())
        let sessions = sessionsDirectory ?? environment("SESSIONCTL_SESSIONS_DIR")
        return ResolvedSettings(
            profile: profileName, settings: settings, sessionsDirectory: sessions, storePolicy: try storePolicy(),
            clientSecret: try ClientSecret.given(stdin: clientSecretStdin, file: clientSecretFile))
    }

    /// `saved`, the profile's saved settings, with these flags and the environment over them.
    func settings(over saved: ProfileSettings) -> ProfileSettings {
        var settings = saved
        settings.issuer = issuer ?? environment("SESSIONCTL_ISSUER") ?? saved.issuer
        settings.clientID = clientID ?? environment("SESSIONCTL_CLIENT_ID") ?? saved.clientID
        settings.audience = audience ?? environment("SESSIONCTL_AUDIENCE") ?? saved.audience
        settings.scope = scope ?? environment("SESSIONCTL_SCOPE") ?? saved.scope
        settings.clientAuth = clientAuth ?? environment("SESSIONCTL_CLIENT_AUTH") ?? saved.clientAuth
        settings.caFile = caFile ?? environment("SESSIONCTL_CA_FILE") ?? saved.caFile
        if let dpop = environment("SESSIONCTL_DPOP") {
            settings.dpop = ["1", "true", "yes"].contains(dpop.lowercased())
        }
        return settings
    }

    /// The store policy from `--store`, else `SESSIONCTL_STORE`, else automatic.
    func storePolicy() throws(SessionKitError) -> StoreSelection.Policy {
        guard let text = store ?? environment("SESSIONCTL_STORE") else { return .automatic }
        guard let policy = StoreSelection.Policy(rawValue: text) else {
            throw SessionKitError(
                code: .invalidConfiguration,
                message:
                    "the store '\(text)' is not one of auto, keyring, kernel, file; pass --store auto|keyring|kernel|file"
            )
        }
        return policy
    }

    private func environment(_ name: String) -> String? {
        Environment.value(name)
    }
}

/// Settings after flags, environment and file, checked and turned into library objects.
struct ResolvedSettings {
    let profile: String
    let settings: ProfileSettings
    let sessionsDirectory: String?
    /// Which store backends may be used (`--store`).
    let storePolicy: StoreSelection.Policy
    /// The client secret given to this run, or read from the secure store.
    var clientSecret: Secret?

    /// How requests reach the provider: `HTTPS_PROXY`, `HTTP_PROXY`, `NO_PROXY` and `SSL_CERT_FILE` from the
    /// environment, and the profile's certificate authority file (`--ca-file`).
    ///
    /// - Throws: ``SessionKitError/Code/invalidConfiguration`` naming the variable or file that is wrong.
    func networkOptions() throws(SessionKitError) -> NetworkOptions {
        let names = ["HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY", "SSL_CERT_FILE"]
        var environment: [String: String] = [:]
        for name in names + names.map({ $0.lowercased() }) { environment[name] = Environment.value(name) }
        var options = try NetworkOptions.fromEnvironment(environment)
        if let file = settings.caFile, !options.certificateAuthorityFiles.contains(file) {
            options.certificateAuthorityFiles.append(file)
            do {
                try options.check()
            } catch {
                throw SessionKitError(
                    code: .invalidConfiguration,
                    message: error.message + "; or change it with `sessionctl configure --profile "
                        + "\(ShellWord.quoted(profile)) --ca-file FILE`")
            }
        }
        return options
    }

    /// The provider configuration, or an error that says which setting is missing or wrong.
    func providerConfiguration() throws(SessionKitError) -> ProviderConfiguration {
        guard let issuerText = settings.issuer else {
            throw SessionKitError(
                code: .invalidConfiguration,
                message: "no issuer is configured for profile '\(profile)'; run `sessionctl configure --issuer URL "
                    + "--client-id ID` or set SESSIONCTL_ISSUER"
            )
        }
        guard let issuer = URL(string: issuerText), issuer.host != nil else {
            throw SessionKitError(
                code: .invalidConfiguration,
                message: "the issuer '\(issuerText)' is not a URL; use the form https://tenant.example.com/"
            )
        }
        guard let clientID = settings.clientID else {
            throw SessionKitError(
                code: .invalidConfiguration,
                message:
                    "no client id is configured for profile '\(profile)'; run `sessionctl configure --client-id ID`"
            )
        }
        return try ProviderConfiguration(
            issuer: issuer,
            clientID: clientID,
            clientSecret: clientSecret,
            clientAuthentication: try clientAuthentication(),
            audience: settings.audience,
            scope: settings.scope,
            endpoints: try endpointOverrides()
        )
    }

    /// `--client-auth` as the library names it.
    private func clientAuthentication() throws(SessionKitError) -> ClientAuthenticationMethod {
        switch settings.clientAuth {
        case nil, "auto": return .automatic
        case "basic": return .clientSecretBasic
        case "post": return .clientSecretPost
        case let other?:
            throw SessionKitError(
                code: .invalidConfiguration,
                message: "the client authentication '\(other)' is not one of auto, basic, post; "
                    + "pass --client-auth auto|basic|post")
        }
    }

    private func endpointOverrides() throws(SessionKitError) -> EndpointOverrides {
        let endpoints = settings.endpoints
        func url(_ text: String?, _ name: String) throws(SessionKitError) -> URL? {
            guard let text else { return nil }
            guard let url = URL(string: text), url.host != nil else {
                throw SessionKitError(
                    code: .invalidConfiguration, message: "the \(name) endpoint '\(text)' is not a URL")
            }
            return url
        }
        return EndpointOverrides(
            authorization: try url(endpoints?.authorization, "authorization"),
            token: try url(endpoints?.token, "token"),
            userInfo: try url(endpoints?.userInfo, "userinfo"),
            revocation: try url(endpoints?.revocation, "revocation"),
            deviceAuthorization: try url(endpoints?.deviceAuthorization, "device-authorization"),
            jwks: try url(endpoints?.jwks, "JWKS")
        )
    }
}
