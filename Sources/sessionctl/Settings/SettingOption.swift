/// The settings options every command takes (`--profile NAME`, `--issuer URL`...), each with a value and an
/// environment variable that stands in for it: the one list that ``GlobalOptions`` declares to ArgumentParser and
/// that the fast paths (``TokenArguments``, ``GitCredentialFastPath``) read without it.
///
/// A new option is a case here, with its help; the compiler then asks for its property in ``GlobalOptions`` (an
/// exhaustive switch) and the fast paths take it as they are. `--client-secret-file` and `--client-secret-stdin`
/// are not settings of this kind: no environment variable names a file, and the fast paths never read a secret.
enum SettingOption: String, CaseIterable, Sendable {
    case profile
    case issuer
    case clientID = "client-id"
    case clientAuth = "client-auth"
    case audience
    case scope
    case sessionsDirectory = "sessions-dir"
    case store
    case caFile = "ca-file"

    /// The option's name on the command line, without the dashes.
    var name: String { rawValue }

    /// The environment variable read when the option is not given.
    var environmentVariable: String {
        switch self {
        case .profile: "SESSIONCTL_PROFILE"
        case .issuer: "SESSIONCTL_ISSUER"
        case .clientID: "SESSIONCTL_CLIENT_ID"
        case .clientAuth: "SESSIONCTL_CLIENT_AUTH"
        case .audience: "SESSIONCTL_AUDIENCE"
        case .scope: "SESSIONCTL_SCOPE"
        case .sessionsDirectory: "SESSIONCTL_SESSIONS_DIR"
        case .store: "SESSIONCTL_STORE"
        case .caFile: "SESSIONCTL_CA_FILE"
        }
    }

    /// The help ArgumentParser shows: what the option sets, its environment variable, and any note.
    var help: String {
        "\(summary) (env \(environmentVariable)\(note.map { "; " + $0 } ?? "")).\(trailer.map { " " + $0 } ?? "")"
    }

    /// The placeholder shown for the value, when ArgumentParser's own (the property's name) would not say enough.
    var valueName: String? {
        switch self {
        case .clientAuth: "auto|basic|post"
        case .store: "auto|keyring|kernel|file"
        case .caFile: "FILE"
        default: nil
        }
    }

    private var summary: String {
        switch self {
        case .profile: "The profile to use"
        case .issuer: "The provider's issuer URL"
        case .clientID: "The client id"
        case .clientAuth: "How the client secret is sent: auto (as discovery lists), basic or post"
        case .audience: "The API audience to request tokens for"
        case .scope: "The scope to request"
        case .sessionsDirectory: "The folder that holds the sessions"
        case .store:
            "Where the session key lives: auto (the keyring if it works, else a key file, with a warning), keyring "
                + "(fail instead of falling back), kernel (the Linux kernel keyring: never on disk, gone after a "
                + "restart; for headless machines) or file"
        case .caFile:
            "Trust the certificate authority in this PEM file besides the system's, for a provider whose certificate "
                + "a private authority signed"
        }
    }

    /// What follows the environment variable inside the parentheses.
    private var note: String? {
        switch self {
        case .profile: "default: default"
        case .clientAuth, .store: "default: auto"
        case .caFile: "SSL_CERT_FILE is trusted too; `configure` saves it"
        default: nil
        }
    }

    /// A sentence after the parentheses.
    private var trailer: String? {
        switch self {
        case .caFile: "Proxies come from HTTPS_PROXY, HTTP_PROXY and NO_PROXY."
        default: nil
        }
    }
}
