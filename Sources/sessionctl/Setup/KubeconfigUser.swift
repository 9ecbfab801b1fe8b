/// A kubeconfig `users:` entry whose exec credential plugin is sessionctl, as YAML (the shape kubelogin documents).
struct KubeconfigUser: Equatable {
    /// The user's name in the kubeconfig, which a context names.
    let name: String
    /// The absolute path of sessionctl.
    let command: String
    /// The profile whose token kubectl gets.
    let profile: String
    /// Whether the credential is the ID token (Kubernetes' OIDC authenticator) rather than the access token.
    let idToken: Bool
    /// Whether kubectl may let sessionctl sign in at the terminal (`interactiveMode: IfAvailable`), else `Never`.
    let interactive: Bool

    /// The arguments kubectl runs `command` with.
    var arguments: [String] {
        ["token", "--output", "exec-credential", "--profile", profile] + (idToken ? ["--id-token"] : [])
    }

    /// The `users:` list with this one entry, each line ending with a line break.
    var yaml: String {
        var lines = [
            "users:",
            "- name: " + YAMLScalar.render(name),
            "  user:",
            "    exec:",
            "      apiVersion: client.authentication.k8s.io/v1",
            "      command: " + YAMLScalar.render(command),
            "      args:",
        ]
        lines += arguments.map { "      - " + YAMLScalar.render($0) }
        lines += [
            "      interactiveMode: " + (interactive ? "IfAvailable" : "Never"),
            "      provideClusterInfo: false",
        ]
        return lines.map { $0 + "\n" }.joined()
    }
}
