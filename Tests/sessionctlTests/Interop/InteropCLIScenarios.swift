import Foundation
import SessionKit
import Testing

/// Sign-in, renewal and logout through `sessionctl`, the same for every provider (`InteropProviderKind.covered`).
@Suite("Interop: sessionctl against each provider")
struct InteropCLIScenarios {
    @Test(
        "password sign-in; a new process sees the session; whoami asks userinfo", arguments: InteropProviderKind.covered
    )
    func passwordSignIn(kind: InteropProviderKind) async throws {
        try await kind.with { provider in
            let cli = try await CLI.make(for: provider, flow: .password)
            defer { cli.cleanUp() }
            try await cli.signIn(provider)
            let status = try await cli.run(["status", "--json"])
            #expect(status.status == 0, "\(status.output)")
            let report = try JSONValue(parsing: Data(status.stdout.utf8))
            #expect(report["signed_in"] == true)
            #expect(report["valid"] == true)
            #expect(report["renewable"] == true)
            let stored = try #require(try await cli.storedCredentials(provider, flow: .password))
            #expect(stored.canRenew)
            let whoami = try await cli.run(["whoami", "--json"])
            #expect(whoami.status == 0, "\(whoami.output)")
            #expect(try JSONValue(parsing: Data(whoami.stdout.utf8))["sub"]?.stringValue?.isEmpty == false)
        }
    }

    @Test("browser sign-in with PKCE through the CLI's loopback listener", arguments: InteropProviderKind.covered)
    func browserSignIn(kind: InteropProviderKind) async throws {
        try await kind.with { provider in
            let cli = try await CLI.make(for: provider, flow: .browser)
            defer { cli.cleanUp() }
            let arguments = try await provider.loginArguments(for: .browser)
            let login = try cli.start(["login", "--browser", "--no-open"] + arguments)
            // The start link redirects the scripted browser to the provider's authorization URL.
            let start = try await login.startLink(timeout: .seconds(60))
            let page = try await provider.completeBrowserSignIn(at: start, in: ScriptedBrowser())
            #expect(page.url.host == "127.0.0.1")
            #expect(page.url.port != provider.issuer.port, "the last redirect reached the CLI's listener")
            #expect(page.html.contains("Signed in"))
            let result = try await login.finish(timeout: .seconds(60))
            #expect(result.status == 0, "\(result.stderr)")
            let stored = try #require(try await cli.storedCredentials(provider, flow: .browser))
            #expect(stored.idTokenClaims?.subject != nil, "the code flow with openid returns a validated ID token")
            #expect(try await cli.run(["status"]).status == 0)
        }
    }

    @Test(
        "device sign-in, approved on the provider's own pages", arguments: InteropProviderKind.coveredWithDeviceFlow)
    func deviceSignIn(kind: InteropProviderKind) async throws {
        try await kind.with { provider in
            try #require(provider.supportsDeviceFlow, "\(provider.name) has no device authorization endpoint")
            let cli = try await CLI.make(for: provider, flow: .device)
            defer { cli.cleanUp() }
            let login = try cli.start(["login", "--device"])
            let shown = try await login.waitForStderr(containing: "enter the code", timeout: .seconds(60))
            let lines = shown.split(separator: "\n")
            let open = try #require(lines.first { $0.contains("To sign in, open") })
            let uri = try #require(open.split(separator: " ").last.flatMap { URL(string: String($0)) })
            let code = try #require(lines.first { $0.contains("enter the code") }?.split(separator: " ").last)
            try await provider.approveDevice(userCode: String(code), verificationURI: uri, in: ScriptedBrowser())
            let result = try await login.finish(timeout: .seconds(60))
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("Signed in"))
            #expect(try await cli.storedCredentials(provider, flow: .device)?.canRenew == true)
            #expect(try await cli.run(["status"]).status == 0)
        }
    }

    @Test(
        "concurrent token processes on an expired session renew once and all print the new token",
        arguments: InteropProviderKind.covered)
    func concurrentProcesses(kind: InteropProviderKind) async throws {
        try await kind.with { provider in
            let cli = try await CLI.make(for: provider, flow: .password)
            defer { cli.cleanUp() }
            try await cli.signIn(provider)
            let before = try #require(try await cli.storedCredentials(provider, flow: .password))
            try await waitUntilExpired(before)
            let processes = try (0..<8).map { _ in try cli.start(["token", "--min-ttl", "0"]) }
            var tokens: Set<String> = []
            for process in processes {
                let result = try await process.finish(timeout: .seconds(60))
                #expect(result.status == 0, "\(result.stderr)")
                tokens.insert(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
            }
            #expect(tokens.count == 1, "every process prints the one renewed token")
            let after = try #require(try await cli.storedCredentials(provider, flow: .password))
            #expect(tokens.first == after.accessToken.unsafeRawValue)
            #expect(after.accessToken != before.accessToken)
            let presented = [before.refreshToken, after.refreshToken].compactMap { $0?.unsafeRawValue }
            #expect(presented.count == 2 && presented[0] != presented[1], "the refresh token rotated")
            #expect(try await provider.refreshGrants(presenting: presented) == 1)
            let client = ProviderClient(configuration: try provider.configuration(for: .password))
            _ = try await client.userInfo(accessToken: after.accessToken)
        }
    }

    @Test(
        "logout revokes at the provider (where it can) and clears; the old refresh token is refused",
        arguments: InteropProviderKind.covered)
    func logoutRevokes(kind: InteropProviderKind) async throws {
        try await kind.with { provider in
            let cli = try await CLI.make(for: provider, flow: .password)
            defer { cli.cleanUp() }
            try await cli.signIn(provider)
            let before = try #require(try await cli.storedCredentials(provider, flow: .password))
            let logout = try await cli.run(["logout"])
            #expect(logout.status == 0, "\(logout.output)")
            #expect(try await cli.run(["status"]).status == 1)
            #expect(try await cli.storedCredentials(provider, flow: .password) == nil)
            let client = ProviderClient(configuration: try provider.configuration(for: .password))
            if provider.supportsRevocation {
                #expect(logout.stdout.contains("revoked at the provider"))
                await #expect(performing: { _ = try await client.renew(before) }, throws: isInvalidGrant)
            } else {
                // No revocation endpoint (django-oidc-provider): the session is cleared locally, the CLI says it
                // could not revoke, and the forgotten refresh token still works at the provider.
                #expect(!logout.stdout.contains("revoked at the provider"), "\(logout.output)")
                #expect(logout.stderr.contains("could not revoke"), "\(logout.output)")
                _ = try await client.renew(before)
            }
        }
    }
}
