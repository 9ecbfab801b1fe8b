import Foundation
import SessionKit
import Testing

extension CLI {
    /// A CLI with a fresh home, configured with `sessionctl configure` for `provider`'s `flow` client.
    static func make(for provider: any InteropProvider, flow: SignInFlow) async throws -> CLI {
        let cli = try CLI.make()
        let configured = try await cli.run(provider.configureArguments(for: flow))
        guard configured.status == 0 else {
            cli.cleanUp()
            throw TestFailure("configure failed: \(configured.output)")
        }
        return cli
    }

    /// Signs the fixture user in with `login --password-stdin`.
    func signIn(_ provider: any InteropProvider) async throws {
        let result = try await run(
            ["login", "--password-stdin", "--username", provider.username], input: provider.password + "\n")
        guard result.status == 0 else { throw TestFailure("login failed: \(result.output)") }
    }

    /// The session the CLI stored for `flow`'s client, read through the library.
    func storedCredentials(_ provider: any InteropProvider, flow: SignInFlow) async throws -> Credentials? {
        try await EncryptedFileStoreReader(folder: sessionsFolder).credentials(for: provider.configuration(for: flow))
    }
}
