import Testing

@testable import sessionctl

@Suite("sessionctl token: the arguments read without ArgumentParser")
struct TokenArgumentsTests {
    @Test("documented options in both forms, and the defaults")
    func documented() throws {
        let defaults = try #require(TokenArguments.parse([]))
        #expect(defaults.minTTL == 60 && !defaults.idToken && !defaults.json && defaults.output == .plain)
        let parsed = try #require(
            TokenArguments.parse(
                [
                    "--min-ttl", "300", "--id-token", "--output=exec-credential", "--profile", "work",
                    "--issuer=https://example.eu.auth0.com/", "--client-id", "abc", "--store", "file",
                    "--sessions-dir", "/tmp/s", "--audience", "api", "--scope=openid", "--json", "--client-auth",
                    "post",
                ][...]))
        #expect(parsed.minTTL == 300 && parsed.idToken && parsed.json && parsed.output == .execCredential)
        let global = parsed.flags
        #expect(global[.profile] == "work" && global[.issuer] == "https://example.eu.auth0.com/")
        #expect(global[.clientID] == "abc" && global[.store] == "file" && global[.sessionsDirectory] == "/tmp/s")
        #expect(global[.audience] == "api" && global[.scope] == "openid" && global[.clientAuth] == "post")
        #expect(TokenArguments.parse(["--min-ttl=-5"][...])?.minTTL == -5)
    }

    @Test(
        "anything else is left to ArgumentParser",
        arguments: [
            ["--help"], ["-h"], ["extra"], ["--min-ttl"], ["--min-ttl", "soon"], ["--output", "yaml"],
            ["--json=yes"], ["--profile"], ["--profile", "--json"], ["--version"], ["--unknown", "x"],
        ])
    func fallsBack(_ arguments: [String]) {
        #expect(TokenArguments.parse(arguments[...]) == nil)
    }
}

@Suite("sessionctl git-credential get: the arguments read without ArgumentParser")
struct GitCredentialArgumentsTests {
    @Test("get with documented options in both forms, before or after the operation")
    func documented() throws {
        let defaults = try #require(GitCredentialFastPath.parse(["get"][...]))
        #expect(defaults.username == "oauth2" && defaults.minTTL == 60 && defaults.options.isEmpty)
        let parsed = try #require(
            GitCredentialFastPath.parse(
                ["--profile", "gitlab", "--min-ttl=300", "get", "--username", "me", "--store=kernel"][...]))
        #expect(parsed.username == "me" && parsed.minTTL == 300)
        #expect(parsed.options == [.profile: "gitlab", .store: "kernel"])
        #expect(!parsed.allowsHTTP)
        let http = try #require(GitCredentialFastPath.parse(["--allow-http", "get", "--min-ttl", "5"][...]))
        #expect(http.allowsHTTP && http.minTTL == 5)
        #expect(GitCredentialFastPath.parse(["get", "--allow-http"][...])?.allowsHTTP == true)
    }

    @Test(
        "store, erase and anything else are left to ArgumentParser",
        arguments: [
            ["store"], ["erase"], [], ["get", "get"], ["--help", "get"], ["get", "--json"],
            ["--min-ttl", "soon", "get"], ["get", "--output", "plain"], ["get", "--username"],
            ["--profile", "--store", "get"], ["get", "--x", "y"], ["get", "--allow-http=yes"],
        ])
    func fallsBack(_ arguments: [String]) {
        #expect(GitCredentialFastPath.parse(arguments[...]) == nil)
    }
}
