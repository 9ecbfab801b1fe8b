import Foundation
import SessionKit
import Testing

@testable import sessionctl

/// The decisions of `kubeconfig` and `token --output exec-credential`, without a process: the YAML, and when a
/// sign-in may happen (`KUBERNETES_EXEC_INFO`).
@Suite("sessionctl kubeconfig and exec-credential: the rules")
struct KubeconfigRulesTests {
    @Test("KUBERNETES_EXEC_INFO: a sign-in only for exec-credential when kubectl says interactive")
    func execInfo() {
        let interactive = KubernetesExecInfo(
            json:
                #"{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","spec":{"interactive":true}}"#
        )
        #expect(interactive?.interactive == true)
        let beta = KubernetesExecInfo(
            json: #"{"apiVersion":"client.authentication.k8s.io/v1beta1","spec":{"interactive":false,"cluster":{}}}"#)
        #expect(beta?.interactive == false)
        #expect(KubernetesExecInfo(json: #"{"spec":{}}"#)?.interactive == false)
        #expect(KubernetesExecInfo(json: "not json") == nil)
        #expect(KubernetesExecInfo(json: #"{"kind":"ExecCredential"}"#) == nil)

        #expect(KubernetesExecInfo.allowsSignIn(format: .execCredential, info: interactive))
        #expect(!KubernetesExecInfo.allowsSignIn(format: .execCredential, info: beta))
        #expect(!KubernetesExecInfo.allowsSignIn(format: .execCredential, info: nil), "run by hand or by a script")
        #expect(!KubernetesExecInfo.allowsSignIn(format: .plain, info: interactive))
        #expect(!KubernetesExecInfo.allowsSignIn(format: .json, info: interactive))
    }

    @Test("the kubeconfig user: kubelogin's shape; strings YAML would read as something else are quoted")
    func kubeconfigUser() {
        let user = KubeconfigUser(
            name: "sessionctl-work", command: "/usr/local/bin/sessionctl", profile: "work", idToken: true,
            interactive: false)
        #expect(
            user.yaml == """
                users:
                - name: sessionctl-work
                  user:
                    exec:
                      apiVersion: client.authentication.k8s.io/v1
                      command: /usr/local/bin/sessionctl
                      args:
                      - token
                      - --output
                      - exec-credential
                      - --profile
                      - work
                      - --id-token
                      interactiveMode: Never
                      provideClusterInfo: false

                """)
        let odd = KubeconfigUser(
            name: "yes", command: "/opt/my tools/sessionctl", profile: "123", idToken: false, interactive: true)
        #expect(odd.yaml.contains("- name: \"yes\"\n"))
        #expect(odd.yaml.contains("command: \"/opt/my tools/sessionctl\"\n"))
        #expect(odd.yaml.contains("- \"123\"\n") && !odd.yaml.contains("--id-token"))
        #expect(odd.yaml.contains("interactiveMode: IfAvailable\n"))
        for (text, rendered) in [
            ("on", "\"on\""), ("Null", "\"Null\""), ("-1", "\"-1\""), (".5", "\".5\""), ("a: b", "\"a: b\""),
            ("x:", "\"x:\""), ("@x", "\"@x\""), ("", "\"\""), ("a\"b\n", "\"a\\\"b\\n\""), ("a:b", "a:b"),
            ("user@example.com", "user@example.com"),
        ] {
            #expect(YAMLScalar.render(text) == rendered, "\(text)")
        }
    }
}
