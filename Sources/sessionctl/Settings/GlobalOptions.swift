import ArgumentParser
import SecureStore
import SessionKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Options every command shares: which profile, and settings that override it.
///
/// The settings options' names, environment variables and help come from ``SettingOption``, the list the fast
/// paths read too; each is declared here once, as ArgumentParser needs a property for it.
struct GlobalOptions: ParsableArguments {
    @Option(name: .setting(.profile), help: .setting(.profile))
    var profile: String?

    @Option(name: .setting(.issuer), help: .setting(.issuer))
    var issuer: String?

    @Option(name: .setting(.clientID), help: .setting(.clientID))
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

    @Option(name: .setting(.clientAuth), help: .setting(.clientAuth))
    var clientAuth: String?

    @Option(name: .setting(.audience), help: .setting(.audience))
    var audience: String?

    @Option(name: .setting(.scope), help: .setting(.scope))
    var scope: String?

    @Option(name: .setting(.sessionsDirectory), help: .setting(.sessionsDirectory))
    var sessionsDirectory: String?

    @Option(name: .setting(.store), help: .setting(.store))
    var store: String?

    @Option(name: .setting(.caFile), help: .setting(.caFile))
    var caFile: String?

    /// The value given to `option`, if any.
    subscript(option: SettingOption) -> String? {
        switch option {
        case .profile: profile
        case .issuer: issuer
        case .clientID: clientID
        case .clientAuth: clientAuth
        case .audience: audience
        case .scope: scope
        case .sessionsDirectory: sessionsDirectory
        case .store: store
        case .caFile: caFile
        }
    }

    /// These options as plain values.
    var flags: SettingFlags {
        var flags = SettingFlags(clientSecretFile: clientSecretFile, clientSecretStdin: clientSecretStdin)
        for option in SettingOption.allCases { flags[option] = self[option] }
        return flags
    }

    /// The profile's name after flags and environment.
    var profileName: String { flags.profileName }

    /// The settings in force: flags over environment over the saved profile.
    func resolved() throws(SessionKitError) -> ResolvedSettings { try flags.resolved() }

    /// The store policy from `--store`, else `SESSIONCTL_STORE`, else automatic.
    func storePolicy() throws(SessionKitError) -> StoreSelection.Policy { try flags.storePolicy() }
}

extension NameSpecification {
    /// The long name of a settings option.
    static func setting(_ option: SettingOption) -> NameSpecification { .customLong(option.name) }
}

extension ArgumentHelp {
    /// The help of a settings option, with its value's placeholder when it has one.
    static func setting(_ option: SettingOption) -> ArgumentHelp {
        guard let valueName = option.valueName else { return ArgumentHelp(option.help) }
        return ArgumentHelp(option.help, valueName: valueName)
    }
}
