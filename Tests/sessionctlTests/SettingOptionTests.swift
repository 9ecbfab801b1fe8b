import ArgumentParser
import Testing

@testable import sessionctl

/// The settings options come from one list (``SettingOption``): ArgumentParser's declarations and both fast paths
/// read it, and the help it gives is the help `sessionctl` gave before the list.
@Suite("sessionctl: one list of settings options")
struct SettingOptionTests {
    @Test("each settings option: declared to ArgumentParser with its help, and read by both fast paths")
    func oneList() throws {
        let help = Token.helpMessage(columns: 10_000)
        for option in SettingOption.allCases {
            #expect(help.contains("--\(option.name) "), "\(option.name) is not declared")
            #expect(help.contains(option.help), "\(option.name)'s help is not the list's")
            #expect(option.help.contains("(env \(option.environmentVariable)"))
            let parsed = try GlobalOptions.parse(["--\(option.name)", "v"])
            #expect(parsed.flags[option] == "v", "ArgumentParser: \(option.name)")
            #expect(
                TokenArguments.parse(["--\(option.name)", "v"][...])?.flags[option] == "v", "token: \(option.name)")
            #expect(
                GitCredentialFastPath.parse(["get", "--\(option.name)=v"][...])?.options[option] == "v",
                "git-credential: \(option.name)")
        }
        #expect(try GlobalOptions.parse([]).flags[.profile] == nil)
    }

    @Test("the help of each option is what it was before the list")
    func helpUnchanged() {
        let before: [SettingOption: String] = [
            .profile: "The profile to use (env SESSIONCTL_PROFILE; default: default).",
            .issuer: "The provider's issuer URL (env SESSIONCTL_ISSUER).",
            .clientID: "The client id (env SESSIONCTL_CLIENT_ID).",
            .clientAuth:
                "How the client secret is sent: auto (as discovery lists), basic or post (env SESSIONCTL_CLIENT_AUTH; "
                + "default: auto).",
            .audience: "The API audience to request tokens for (env SESSIONCTL_AUDIENCE).",
            .scope: "The scope to request (env SESSIONCTL_SCOPE).",
            .sessionsDirectory: "The folder that holds the sessions (env SESSIONCTL_SESSIONS_DIR).",
            .store:
                "Where the session key lives: auto (the keyring if it works, else a key file, with a warning), "
                + "keyring (fail instead of falling back), kernel (the Linux kernel keyring: never on disk, gone "
                + "after a restart; for headless machines) or file (env SESSIONCTL_STORE; default: auto).",
            .caFile:
                "Trust the certificate authority in this PEM file besides the system's, for a provider whose certificate "
                + "a private authority signed (env SESSIONCTL_CA_FILE; SSL_CERT_FILE is trusted too; `configure` "
                + "saves it). Proxies come from HTTPS_PROXY, HTTP_PROXY and NO_PROXY.",
        ]
        for option in SettingOption.allCases {
            #expect(option.help == before[option], "\(option.name)")
        }
    }

    @Test("login and configure take the redirect options from one declaration, and refuse both at once")
    func redirectOptions() throws {
        let login = Login.helpMessage(columns: 10_000)
        let configure = Configure.helpMessage(columns: 10_000)
        for text in [
            "A fixed port for browser sign-in redirects (default: the profile's, else a free port).",
            "The exact redirect URI for browser sign-ins, for providers that match it exactly",
        ] {
            #expect(RedirectOptions.helpMessage(columns: 10_000).contains(text))
            #expect(login.contains(text), "login: \(text)")
            #expect(configure.contains(text), "configure: \(text)")
        }
        #expect(throws: (any Error).self) { try RedirectOptions.parse(["--redirect-port", "70000"]) }
        #expect(throws: (any Error).self) {
            try RedirectOptions.parse(["--redirect-port", "1", "--redirect-uri", "http://127.0.0.1/cb"])
        }
        #expect(try RedirectOptions.parse(["--redirect-port", "0"]).redirectPort == 0)
    }
}
