import ArgumentParser
import SecureStore
import SessionKit
import SessionKitLoopback

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `sessionctl configure`: saves a profile's provider settings.
struct Configure: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Save a profile's provider settings (issuer, client id, audience, scope, endpoints, git hosts).",
        discussion: """
            A confidential client's secret, given with --client-secret-file or --client-secret-stdin, is saved in \
            the secure store, never in config.json. SESSIONCTL_CLIENT_SECRET is used by the run it is set for and \
            never saved.

            Example: sessionctl configure --issuer https://TENANT.eu.auth0.com/ --client-id ID --scope \
            "openid profile email offline_access"
            """
    )

    @OptionGroup var options: GlobalOptions

    @OptionGroup var redirect: RedirectOptions

    @Option(name: .customLong(EndpointOption.authorization), help: "Override the discovered authorization endpoint.")
    var authorizationEndpoint: String?

    @Option(name: .customLong(EndpointOption.token), help: "Override the discovered token endpoint.")
    var tokenEndpoint: String?

    @Option(name: .customLong(EndpointOption.userInfo), help: "Override the discovered userinfo endpoint.")
    var userInfoEndpoint: String?

    @Option(name: .customLong(EndpointOption.revocation), help: "The revocation endpoint, when discovery omits it.")
    var revocationEndpoint: String?

    @Option(
        name: .customLong(EndpointOption.deviceAuthorization),
        help: "The device-authorization endpoint, when discovery omits it.")
    var deviceEndpoint: String?

    @Option(name: .customLong(EndpointOption.jwks), help: "Override the discovered JWKS URL.")
    var jwksURI: String?

    @Option(
        name: .customLong("git-host"),
        help: ArgumentHelp(
            "A forge that `sessionctl git-credential` may give this profile's tokens to (port 443 unless named; "
                + "repeat for more). The issuer's own host and port need none.",
            valueName: "HOST[:PORT]"))
    var gitHosts: [String] = []

    @Flag(
        name: .customLong("no-git-hosts"),
        help: "Forget the profile's saved git hosts (with --git-host: replace them with the ones given).")
    var noGitHosts = false

    @Flag(name: .customLong("forget-client-secret"), help: "Delete the profile's saved client secret.")
    var forgetClientSecret = false

    @Flag(
        inversion: .prefixedNo,
        help: ArgumentHelp(
            "Bind the tokens to a DPoP key kept in the secure store (RFC 9449; env SESSIONCTL_DPOP=1). Takes "
                + "effect at the next sign-in."))
    var dpop: Bool?

    func validate() throws {
        if forgetClientSecret && (options.clientSecretFile != nil || options.clientSecretStdin) {
            throw ValidationError("--forget-client-secret excludes --client-secret-file and --client-secret-stdin")
        }
        if options.clientSecretFile != nil && options.clientSecretStdin {
            throw ValidationError("--client-secret-file and --client-secret-stdin exclude each other; give one")
        }
        for host in gitHosts where GitHost(host, defaultPort: 443) == nil {
            throw ValidationError(
                "--git-host '\(host)' is not HOST or HOST:PORT; give the forge's host as its git URLs name it, such "
                    + "as gitlab.example.com, git.example.com:8443 or [2001:db8::1]:443")
        }
    }

    func run() async throws {
        try await reporting {
            var file = try ConfigFile.load()
            let name = options.profileName
            var profile = file.profiles[name] ?? ProfileSettings()
            profile.issuer = options.issuer ?? profile.issuer
            profile.clientID = options.clientID ?? profile.clientID
            profile.audience = options.audience ?? profile.audience
            profile.scope = options.scope ?? profile.scope
            profile.clientAuth = options.clientAuth ?? profile.clientAuth
            // Absolute: git and kubectl run sessionctl from other folders.
            profile.caFile = options.caFile.map(Self.absolutePath) ?? profile.caFile
            if let dpop { profile.dpop = dpop ? true : nil }
            if let uri = redirect.redirectURI {
                profile.redirectURI = try LoopbackRedirectURI(uri).description
                profile.redirectPort = nil
            } else if let port = redirect.redirectPort {
                profile.redirectPort = port
                profile.redirectURI = nil
            }
            var hosts = noGitHosts ? [] : profile.gitHosts ?? []
            let named = gitHosts.compactMap { GitHost($0, defaultPort: 443)?.description }
            for host in named where !hosts.contains(host) { hosts.append(host) }
            profile.gitHosts = hosts.isEmpty ? nil : hosts
            var endpoints = profile.endpoints ?? .init()
            endpoints.authorization = authorizationEndpoint ?? endpoints.authorization
            endpoints.token = tokenEndpoint ?? endpoints.token
            endpoints.userInfo = userInfoEndpoint ?? endpoints.userInfo
            endpoints.revocation = revocationEndpoint ?? endpoints.revocation
            endpoints.deviceAuthorization = deviceEndpoint ?? endpoints.deviceAuthorization
            endpoints.jwks = jwksURI ?? endpoints.jwks
            profile.endpoints = endpoints == .init() ? nil : endpoints
            let given =
                options.clientSecretStdin || options.clientSecretFile != nil
                ? try ClientSecret.given(stdin: options.clientSecretStdin, file: options.clientSecretFile) : nil
            // Check before saving: a bad URL or plain http to a remote host is refused here.
            let resolved = ResolvedSettings(
                profile: name, settings: profile, sessionsDirectory: options.sessionsDirectory,
                storePolicy: try options.storePolicy(), clientSecret: given)
            _ = try resolved.providerConfiguration()
            if options.caFile != nil { _ = try resolved.networkOptions() }
            if given != nil || forgetClientSecret {
                try saveSecret(given, for: resolved)
                profile.clientSecretInStore = given != nil ? true : nil
            }
            file.profiles[name] = profile
            try file.save()
            Terminal.out("Saved profile '\(name)' to \(ConfigFile.path.path)")
            if given != nil { Terminal.out("Saved the client secret in the secure store") }
            if forgetClientSecret { Terminal.out("Deleted the saved client secret") }
        }
    }

    /// `path` made absolute against the current folder.
    private static func absolutePath(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }

    /// Saves `secret` for the profile in its secure store, or deletes the saved one when `secret` is `nil`.
    private func saveSecret(_ secret: Secret?, for resolved: ResolvedSettings) throws(SessionKitError) {
        let folder =
            resolved.sessionsDirectory ?? Environment.value("SESSIONCTL_SESSIONS_DIR")
            ?? SessionContext.defaultStoreFolder
        let store = try SessionContext.openStore(resolved, folder: folder).store
        let key = ClientSecret.storeKey(profile: resolved.profile)
        do {
            if let secret {
                try store.setString(secret.unsafeRawValue, forKey: key)
            } else {
                try store.deleteItem(forKey: key)
            }
        } catch {
            throw SessionKitError(storeError: error)
        }
    }
}
