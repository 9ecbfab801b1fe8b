import ArgumentParser
import SessionKit

/// `sessionctl kubeconfig`: prints the kubeconfig `users:` entry that makes kubectl run this sessionctl as its
/// credential plugin, as `kubectl oidc-login setup` (kubelogin) shows one.
struct Kubeconfig: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print a kubeconfig user whose credential plugin is this sessionctl (the ID token by default).",
        discussion: """
            Prints YAML for the users: list of a kubeconfig: an exec plugin that runs '/absolute/path/to/sessionctl \
            token --output exec-credential --profile P --id-token' (apiVersion client.authentication.k8s.io/v1, \
            provideClusterInfo false). Kubernetes' OpenID Connect authenticator takes the ID token, as kubelogin \
            sends it; --access-token sends the access token instead (for a cluster whose authenticator accepts \
            the provider's access tokens). With --interactive (interactiveMode IfAvailable), kubectl run at a \
            terminal lets sessionctl sign in (the browser, as sessionctl login) when there is no session; else \
            (Never) it fails and says to run sessionctl login --profile P.

            Example: keep the user in a file of its own, which kubectl reads beside your kubeconfig, and use it in \
            the current context:

              sessionctl kubeconfig --profile work --interactive > ~/.kube/sessionctl-work.yaml
              export KUBECONFIG=~/.kube/config:~/.kube/sessionctl-work.yaml
              kubectl config set-context --current --user sessionctl-work
              kubectl get pods
            """
    )

    /// `--profile`.
    @Option(help: "The profile whose token kubectl gets (env SESSIONCTL_PROFILE; default: default).")
    var profile: String?

    /// `--user`: the entry's name.
    @Option(help: ArgumentHelp("The user's name in the kubeconfig (default: sessionctl-PROFILE).", valueName: "NAME"))
    var user: String?

    /// `--access-token`: the access token rather than the ID token.
    @Flag(name: .customLong("access-token"), help: "Send the access token rather than the ID token.")
    var accessToken = false

    /// `--interactive`: `interactiveMode: IfAvailable`.
    @Flag(help: "Let kubectl at a terminal sign in when there is no session (interactiveMode IfAvailable).")
    var interactive = false

    func validate() throws {
        if let profile { try ProfileName.validate(profile) }
        if let user, user.isEmpty || user.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        {
            throw ValidationError("--user must be a name without line breaks or other control characters")
        }
    }

    func run() async throws {
        let flags = SettingFlags(profile.map { [.profile: $0] } ?? [:])
        try await reporting(profile: flags.profileName) {
            // A user whose plugin cannot sign in would only fail in kubectl: say so here.
            _ = try flags.resolved().providerConfiguration()
            guard let program = RunningProgram.path else {
                throw SessionKitError(
                    code: .invalidConfiguration,
                    message: "cannot tell where this sessionctl is installed; run it by its absolute path, such as "
                        + "/usr/local/bin/sessionctl kubeconfig")
            }
            let entry = KubeconfigUser(
                name: user ?? "sessionctl-" + flags.profileName, command: program, profile: flags.profileName,
                idToken: !accessToken, interactive: interactive)
            Terminal.outRaw(entry.yaml)
        }
    }
}
