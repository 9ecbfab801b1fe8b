import Foundation
import SessionKit
import Testing

@testable import sessionctl

/// The decisions of `git-credential configure`, without a process: which helper values are ours, the `git config`
/// commands, the forge `--host` names, and the path of the running program.
@Suite("sessionctl git-credential configure: the rules")
struct GitCredentialConfigureRulesTests {
    static let line = "!/usr/bin/sessionctl git-credential --profile work"
    static let key = "credential.https://git.example.com.helper"

    @Test("ours: a sessionctl git-credential line, wherever sessionctl is, and the empty value right before it")
    func ours() {
        for value in [
            Self.line, "!sessionctl git-credential", "!'/opt/my tools/sessionctl' git-credential --profile x",
        ] {
            #expect(GitHelperEntries.runsSessionctl(value), "\(value)")
        }
        for value in [
            "", "store", "sessionctl git-credential", "!sessionctl token", "!/usr/bin/gh auth git-credential",
        ] {
            #expect(!GitHelperEntries.runsSessionctl(value), "\(value)")
        }
        let entries = GitHelperEntries(values: ["cache", "", "store", "", "!sessionctl git-credential", "other"])
        #expect(entries.others == ["cache", "", "store", "other"])
        #expect(
            GitHelperEntries.line(program: "/opt/my tools/sessionctl", profile: "a b")
                == "!'/opt/my tools/sessionctl' git-credential --profile 'a b'")
    }

    @Test("configure appends an empty value and the line after the others; again, it writes nothing")
    func configureCommands() {
        #expect(
            GitHelperEntries(values: []).configuring(key: Self.key, line: Self.line)
                == [["--add", Self.key, ""], ["--add", Self.key, Self.line]])
        #expect(GitHelperEntries(values: ["", Self.line]).configuring(key: Self.key, line: Self.line).isEmpty)
        #expect(GitHelperEntries(values: ["cache", "", Self.line]).configuring(key: Self.key, line: Self.line).isEmpty)
        // Another profile's line (or the hand-written one) is replaced, each of ours removed by its exact value.
        let replaced = GitHelperEntries(values: ["cache", "", "!sessionctl git-credential --profile old"])
        #expect(
            replaced.configuring(key: Self.key, line: Self.line) == [
                ["--unset-all", "--fixed-value", Self.key, ""],
                ["--unset-all", "--fixed-value", Self.key, "!sessionctl git-credential --profile old"],
                ["--add", Self.key, ""], ["--add", Self.key, Self.line],
            ])
        // An empty value of the user's own cannot be told from ours by value: everything is written again.
        let mixed = GitHelperEntries(values: ["", "cache", "", Self.line])
        #expect(
            mixed.unconfiguring(key: Self.key) == [
                ["--unset-all", Self.key], ["--add", Self.key, ""], ["--add", Self.key, "cache"],
            ])
        #expect(GitHelperEntries(values: ["cache"]).unconfiguring(key: Self.key).isEmpty)
    }

    @Test("--host: HOST[:PORT] is https; a URL may be http only for this machine; never a path")
    func forges() throws {
        #expect(try GitForge("gitlab.example.com").helperKey == "credential.https://gitlab.example.com.helper")
        #expect(try GitForge("git.example.com:8443").description == "https://git.example.com:8443")
        #expect(try GitForge("https://git.example.com:443/").description == "https://git.example.com")
        let loopback = try GitForge("http://127.0.0.1:8080")
        #expect(loopback.helperKey == "credential.http://127.0.0.1:8080.helper")
        #expect(loopback.option == "http://127.0.0.1:8080")
        #expect(try GitForge("[::1]:8443").description == "https://[::1]:8443")
        for text in ["http://git.example.com", "ssh://git.example.com", "git.example.com/group", "", "a b"] {
            #expect(throws: GitForge.Invalid.self, "\(text)") { try GitForge(text) }
        }
        #expect(
            try GitForge(issuer: try #require(URL(string: "https://gitlab.example.com/"))).option
                == "gitlab.example.com")
    }

    @Test("the running program: argv[0] made absolute without following links, or found on PATH")
    func runningProgram() throws {
        #expect(RunningProgram.lexicallyNormalized("/a/./b//c/../d") == "/a/b/d")
        #expect(RunningProgram.pathFromArguments("/bin/sh") == "/bin/sh")
        #expect(RunningProgram.pathFromArguments("sh", path: "/nowhere:/bin") == "/bin/sh")
        #expect(RunningProgram.pathFromArguments("no-such-program-here", path: "/bin") == nil)
        let path = try #require(RunningProgram.path)
        #expect(path.hasPrefix("/") && FileManager.default.isExecutableFile(atPath: path))
    }
}
