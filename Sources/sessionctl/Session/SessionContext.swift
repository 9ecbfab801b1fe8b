import SecureStore
import SessionKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The library objects a command works with, built from the resolved settings.
struct SessionContext {
    let resolved: ResolvedSettings
    let configuration: ProviderConfiguration
    /// The folder that holds the sessions.
    let storeFolder: String
    /// The store in use and where its key is.
    let storeSelection: StoreSelection
    let provider: ProviderClient
    let session: SessionManager

    /// Builds the provider client, the encrypted store and the session manager for the profile.
    ///
    /// The store's key is in the keyring when it works (see `--store`); a fallback to the key file is noted on
    /// standard error, once per sessions folder, unless `warnOnFallback` is `false` (`status` shows it itself). A client
    /// secret that `configure` saved, and the DPoP key of a profile that uses one, are read from the store unless
    /// `readsStoredSecret` is `false` (the local token path, which sends nothing to the provider); that path does not
    /// read the network settings either (the environment's proxies, the certificate authority files).
    static func make(_ options: GlobalOptions, warnOnFallback: Bool = true, readsStoredSecret: Bool = true)
        throws(SessionKitError) -> SessionContext
    {
        try make(options.flags, warnOnFallback: warnOnFallback, readsStoredSecret: readsStoredSecret)
    }

    /// The same, from the flags as plain values.
    static func make(_ flags: SettingFlags, warnOnFallback: Bool = true, readsStoredSecret: Bool = true)
        throws(SessionKitError) -> SessionContext
    {
        let resolved = try flags.resolved()
        let folder = resolved.sessionsDirectory ?? Self.defaultStoreFolder
        let selection = try openStore(resolved, folder: folder)
        if warnOnFallback, selection.warning != nil { noteFallbackOnce(folder: folder) }
        return try make(resolved, folder: folder, selection: selection, readsStoredSecret: readsStoredSecret)
    }

    /// The context for sending requests, from one built by the local token path (`readsStoredSecret: false`),
    /// with the store it opened: the stored client secret and DPoP key, the network settings, and a session
    /// manager that starts from the record the local path read (``SessionManager/takeOver(_:)``). So the renewal
    /// opens, keys and reads nothing again.
    func sending() throws(SessionKitError) -> SessionContext {
        let context = try Self.make(resolved, folder: storeFolder, selection: storeSelection, readsStoredSecret: true)
        if let record = session.heldRecord { context.session.takeOver(record) }
        return context
    }

    private static func make(
        _ resolved: ResolvedSettings, folder: String, selection: StoreSelection, readsStoredSecret: Bool
    ) throws(SessionKitError) -> SessionContext {
        var resolved = resolved
        if resolved.clientSecret == nil, readsStoredSecret, resolved.settings.clientSecretInStore == true {
            resolved.clientSecret = try ClientSecret.stored(in: selection.store, profile: resolved.profile)
        }
        var configuration = try resolved.providerConfiguration()
        // The DPoP key is read (made on first use) only where requests may be sent: the local token path sends
        // nothing and needs no key, nor a write to the store.
        if readsStoredSecret, resolved.settings.dpop == true {
            configuration.dpop = try DPoPKey.stored(
                in: selection.store, forKey: "sessionctl.dpop-key." + resolved.profile)
        }
        let transport = readsStoredSecret ? Self.transport(resolved) : ProviderClient.defaultTransport
        let provider = ProviderClient(configuration: configuration, transport: transport)
        let session = SessionManager(provider: provider, store: selection.store, account: resolved.profile)
        return SessionContext(
            resolved: resolved, configuration: configuration, storeFolder: folder, storeSelection: selection,
            provider: provider, session: session
        )
    }

    /// A provider client like ``provider`` that pushes every sign-in's parameters first (`login --par`, RFC 9126).
    func pushingAuthorization() -> ProviderClient {
        var configuration = configuration
        configuration.pushedAuthorization = .always
        return ProviderClient(configuration: configuration, transport: Self.transport(resolved))
    }

    /// The platform's transport with the proxy and certificate authorities of `resolved`; when those settings are
    /// wrong, a transport that fails each request with the error that says so, so that commands that send nothing
    /// (a valid token read locally) still work.
    static func transport(_ resolved: ResolvedSettings) -> any HTTPTransport {
        let network: NetworkOptions
        do {
            network = try resolved.networkOptions()
        } catch {
            return RefusingTransport(error: error)
        }
        if network.isDefault { return ProviderClient.defaultTransport }
        #if canImport(Darwin)
            return URLSessionTransport(network: network)
        #else
            return AsyncHTTPClientTransport(network: network)
        #endif
    }

    /// Says once per sessions folder, in one line, that no keyring answered and the key is in a file: every command
    /// would otherwise repeat it. `status` shows the whole warning every time. `--store kernel` is offered only
    /// where this process may use the kernel keyring (a container's seccomp profile may deny it).
    static func noteFallbackOnce(folder: String) {
        let marker = folder + "/.key-file-fallback-noted"
        guard !FileManager.default.fileExists(atPath: marker) else { return }
        let kernel = (try? KernelKeyring.shared.get().isUsable) == true
        Terminal.err(
            "sessionctl: note: no keyring answered, so the session key is in a file beside the session (mode 0600); "
                + "--store file chooses that and ends this note, "
                + (kernel ? "--store kernel keeps the key in the kernel keyring, " : "")
                + "`sessionctl status` says more")
        _ = FileManager.default.createFile(atPath: marker, contents: nil, attributes: [.posixPermissions: 0o600])
    }

    /// The secure store for `resolved`'s settings in `folder`.
    ///
    /// A store that cannot be opened (no keyring, the kernel keyring denied, its key gone) says so in the store's own
    /// words, which name what to do; SessionKit's "the session is kept, try again", written for a failure in the
    /// middle of a session, would contradict them. Damage keeps SessionKit's message.
    static func openStore(_ resolved: ResolvedSettings, folder: String) throws(SessionKitError) -> StoreSelection {
        do {
            return try StoreSelection.make(
                service: "sessionctl", folder: folder, policy: resolved.storePolicy, keyFileName: "sessionctl.key")
        } catch {
            let mapped = SessionKitError(storeError: error)
            guard mapped.code == .storeUnavailable else { throw mapped }
            throw SessionKitError(
                code: .storeUnavailable, message: "the session store in \(folder) cannot be opened: \(error.message)",
                underlyingError: error)
        }
    }

    /// `$XDG_STATE_HOME/sessionctl`, else `~/.local/state/sessionctl`.
    static var defaultStoreFolder: String {
        if let state = Environment.value("XDG_STATE_HOME") { return state + "/sessionctl" }
        return Environment.home + "/.local/state/sessionctl"
    }
}

/// Runs a command body and turns a library error into one line on standard error and an exit code; advice that
/// names a `configure` option names `profile` too, when given.
func reporting<T>(profile: String? = nil, _ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch let error as SessionKitError {
        Terminal.err("sessionctl: \(error.messageForCLI(profile: profile))\(providerDetail(error))")
        if error.code == .stepUpRequired { Terminal.err(stepUpAdvice(error.stepUp)) }
        throw ExitStatus.code(for: error)
    }
}

/// What to run after a step-up answer: a browser sign-in that asks for what the provider named, its values quoted
/// for the shell (they are the provider's text).
private func stepUpAdvice(_ challenge: StepUpChallenge?) -> String {
    var command = "sessionctl login --browser"
    if let values = challenge?.acrValues, !values.isEmpty {
        command += " --acr-values " + ShellWord.quoted(values.joined(separator: " "))
    }
    if let maxAge = challenge?.maxAge { command += " --max-age \(maxAge)" }
    return "The session is kept. Sign in again with a second factor: \(command)"
}

private func providerDetail(_ error: SessionKitError) -> String {
    guard let code = error.oauthError, !error.message.contains("(\(code))") else { return "" }
    return " (provider: \(code)\(error.oauthErrorDescription.map { ": \($0)" } ?? ""))"
}
