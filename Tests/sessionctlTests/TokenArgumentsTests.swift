import Testing

@testable import sessionctl

@Suite("sessionctl token: the arguments read without ArgumentParser")
struct TokenArgumentsTests {
    @Test("documented options in both forms, and the defaults")
    func documented() throws {
        let defaults = try #require(TokenFastPath.parse([]))
        #expect(defaults.minTTL == 60 && !defaults.idToken && !defaults.json && defaults.output == .plain)
        let parsed = try #require(
            TokenFastPath.parse(
                [
                    "--min-ttl", "300", "--id-token", "--output=exec-credential", "--profile", "work",
                    "--issuer=https://example.eu.auth0.com/", "--client-id", "abc", "--store", "file",
                    "--sessions-dir", "/tmp/s", "--audience", "api", "--scope=openid", "--json", "--client-auth",
                    "post",
                ][...]))
        #expect(parsed.minTTL == 300 && parsed.idToken && parsed.json && parsed.output == .execCredential)
        let global = parsed.flags
        #expect(global.profile == "work" && global.issuer == "https://example.eu.auth0.com/")
        #expect(global.clientID == "abc" && global.store == "file" && global.sessionsDirectory == "/tmp/s")
        #expect(global.audience == "api" && global.scope == "openid" && global.clientAuth == "post")
        #expect(TokenFastPath.parse(["--min-ttl=-5"][...])?.minTTL == -5)
    }

    @Test(
        "anything else is left to ArgumentParser",
        arguments: [
            ["--help"], ["-h"], ["extra"], ["--min-ttl"], ["--min-ttl", "soon"], ["--output", "yaml"],
            ["--json=yes"], ["--profile"], ["--profile", "--json"], ["--version"], ["--unknown", "x"],
        ])
    func fallsBack(_ arguments: [String]) {
        #expect(TokenFastPath.parse(arguments[...]) == nil)
    }
}
