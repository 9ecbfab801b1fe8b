import SessionKit
import SessionKitSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What kubectl tells a credential plugin in `KUBERNETES_EXEC_INFO`: an `ExecCredential` (client.authentication.k8s.io
/// v1 or v1beta1) whose `spec.interactive` says whether the plugin may talk to the person at the terminal.
///
/// kubectl sets it true when the kubeconfig's `interactiveMode` allows it (`IfAvailable`, `Always`) and its own
/// standard input is a terminal, and then hands that terminal to the plugin. `sessionctl token --output
/// exec-credential` signs in only then; without the variable (run by hand, by a script) it stays non-interactive.
struct KubernetesExecInfo: Equatable {
    /// `spec.interactive`: whether kubectl lets the plugin prompt.
    let interactive: Bool

    /// The name of the environment variable.
    static let variable = "KUBERNETES_EXEC_INFO"

    /// Reads the variable's JSON; `nil` when it is not an object with `spec` (`spec.interactive` missing is false).
    init?(json text: String) {
        guard let value = try? JSONValue(parsing: Data(text.utf8)),
            let spec = value.objectValue?.member("spec")?.objectValue
        else { return nil }
        interactive = spec.member("interactive")?.boolValue ?? false
    }

    /// What this process's environment says, if anything.
    static var current: KubernetesExecInfo? {
        Environment.value(variable).flatMap(KubernetesExecInfo.init(json:))
    }

    /// Whether `sessionctl token` in `format` may sign in when it has no session: only for kubectl's exec plugin, and
    /// only when kubectl says a person is at the terminal.
    static func allowsSignIn(format: Token.Format, info: KubernetesExecInfo?) -> Bool {
        format == .execCredential && info?.interactive == true
    }
}
