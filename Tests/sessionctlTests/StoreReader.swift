import AuthEmulator
import Foundation
import SecureStore
import SessionKit

/// Reads the CLI's stored session through the library, to know which token values must never be printed.
struct EncryptedFileStoreReader {
    let store: EncryptedFileStore

    init(folder: URL) throws {
        store = try EncryptedFileStore(
            service: "sessionctl",
            configuration: .init(folder: folder.path, keySource: .keyFile(atPath: folder.path + "/sessionctl.key"))
        )
    }

    /// The stored access, refresh and ID tokens of the default profile.
    func secrets(issuer: URL) async throws -> [String] {
        let configuration = try ProviderConfiguration(issuer: issuer, clientID: AuthEmulator.Client.nativeID)
        guard let credentials = try await credentials(for: configuration) else { return [] }
        return [credentials.accessToken, credentials.refreshToken, credentials.idToken].compactMap {
            $0?.unsafeRawValue
        }
    }

    /// The default profile's stored session for `configuration`'s issuer and client.
    func credentials(for configuration: ProviderConfiguration) async throws -> Credentials? {
        try await SessionManager(provider: ProviderClient(configuration: configuration), store: store)
            .storedCredentials()
    }
}
