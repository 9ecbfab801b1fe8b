import AuthEmulator
import Foundation
import SessionKitTesting
import Testing

/// An older `sessionctl` meeting a store a newer one wrote (a downgrade): it says so and leaves the store as it is,
/// for the newer version to go on with.
@Suite("sessionctl after a downgrade")
struct DowngradeCLITests {
    @Test("a store file of a newer format: token and login exit 3, say to upgrade, and leave the file untouched")
    func newerStoreFile() async throws {
        try await LiveEmulator.with { emulator in
            let cli = try CLI.make(for: emulator)
            defer { cli.cleanUp() }
            try await cli.signIn()
            let file = try #require(
                try FileManager.default.contentsOfDirectory(at: cli.sessionsFolder, includingPropertiesForKeys: nil)
                    .first { $0.pathExtension == "store" })
            var bytes = try Data(contentsOf: file)
            bytes[4] = 2  // the format version after the magic
            try bytes.write(to: file)

            for arguments in [["token"], ["status"]] {
                let result = try await cli.run(arguments)
                #expect(result.status == 3, "\(arguments): \(result.stderr)")
                #expect(result.stderr.contains("newer"), "\(arguments): \(result.stderr)")
                #expect(result.stderr.contains("upgrade"), "\(arguments): \(result.stderr)")
            }
            let login = try await cli.run(
                ["login", "--password-stdin", "--username", AuthEmulator.User.aliceEmail],
                input: AuthEmulator.User.alicePassword + "\n")
            #expect(login.status == 3, "\(login.stderr)")
            #expect(try Data(contentsOf: file) == bytes, "the newer version's store is left as it is")
        }
    }
}
