import SecureStore
import SessionKit

/// The settings options (``SettingOption``) as plain values, and the client secret's: what ``GlobalOptions`` gives,
/// and what the fast paths fill in without ArgumentParser, whose option types cost them a protocol-conformance scan
/// to build (see `Benchmarks/cli.sh`).
struct SettingFlags {
    /// The settings options given, by option.
    private var values: [SettingOption: String] = [:]
    var clientSecretFile: String?
    var clientSecretStdin = false

    /// Flags with `values` given and no client secret.
    init(_ values: [SettingOption: String] = [:], clientSecretFile: String? = nil, clientSecretStdin: Bool = false) {
        self.values = values
        self.clientSecretFile = clientSecretFile
        self.clientSecretStdin = clientSecretStdin
    }

    /// The value given to `option` on the command line, if any.
    subscript(option: SettingOption) -> String? {
        get { values[option] }
        set { values[option] = newValue }
    }

    /// The value of `option`: given on the command line, else its environment variable, else `nil`.
    func value(_ option: SettingOption) -> String? {
        values[option] ?? Environment.value(option.environmentVariable)
    }

    /// The profile's name after flags and environment.
    var profileName: String {
        value(.profile) ?? "default"
    }

    /// The settings in force: flags over environment over the saved profile.
    func resolved() throws(SessionKitError) -> ResolvedSettings {
        let settings = self.settings(over: try ConfigFile.load().profiles[profileName] ?? ProfileSettings())
        return ResolvedSettings(
            profile: profileName, settings: settings, sessionsDirectory: value(.sessionsDirectory),
            storePolicy: try storePolicy(),
            clientSecret: try ClientSecret.given(stdin: clientSecretStdin, file: clientSecretFile))
    }

    /// `saved`, the profile's saved settings, with these flags and the environment over them.
    func settings(over saved: ProfileSettings) -> ProfileSettings {
        var settings = saved
        settings.issuer = value(.issuer) ?? saved.issuer
        settings.clientID = value(.clientID) ?? saved.clientID
        settings.audience = value(.audience) ?? saved.audience
        settings.scope = value(.scope) ?? saved.scope
        settings.clientAuth = value(.clientAuth) ?? saved.clientAuth
        settings.caFile = value(.caFile) ?? saved.caFile
        if let dpop = Environment.value("SESSIONCTL_DPOP") {
            settings.dpop = ["1", "true", "yes"].contains(dpop.lowercased())
        }
        return settings
    }

    /// The store policy from `--store`, else `SESSIONCTL_STORE`, else automatic.
    func storePolicy() throws(SessionKitError) -> StoreSelection.Policy {
        guard let text = value(.store) else { return .automatic }
        guard let policy = StoreSelection.Policy(rawValue: text) else {
            throw SessionKitError(
                code: .invalidConfiguration,
                message:
                    "the store '\(text)' is not one of auto, keyring, kernel, file; pass --store auto|keyring|kernel|file"
            )
        }
        return policy
    }
}
