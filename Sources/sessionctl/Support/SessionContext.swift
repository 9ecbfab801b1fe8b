import Foundation
import SecureStore
import SessionKit

/// The library objects a command works with, built from the resolved settings.
struct SessionContext {
    let resolved: ResolvedSettings
    let configuration: ProviderConfiguration
    /// The folder that holds the sessions.
    let storeFolder: String
    let provider: ProviderClient
    let session: SessionManager

    /// Builds the provider client, the encrypted store and the session manager for the profile.
    static func make(_ options: GlobalOptions) throws(SessionKitError) -> SessionContext {
        let resolved = try options.resolved()
        let configuration = try resolved.providerConfiguration()
        let folder = resolved.sessionsDirectory ?? Self.defaultStoreFolder
        let store: EncryptedFileStore
        do {
            store = try EncryptedFileStore(
                service: "sessionctl",
                configuration: .init(folder: folder, keySource: .keyFile(atPath: folder + "/sessionctl.key"))
            )
        } catch {
            throw SessionKitError(
                code: error.code == .invalidArgument ? .invalidConfiguration : .storeUnavailable,
                message: "the session store in \(folder) cannot be opened (\(error.message))",
                underlyingError: error
            )
        }
        let provider = ProviderClient(configuration: configuration)
        let session = SessionManager(provider: provider, store: store, account: resolved.profile)
        return SessionContext(
            resolved: resolved, configuration: configuration, storeFolder: folder, provider: provider, session: session
        )
    }

    /// `$XDG_STATE_HOME/sessionctl`, else `~/.local/state/sessionctl`.
    static var defaultStoreFolder: String {
        let environment = ProcessInfo.processInfo.environment
        if let state = environment["XDG_STATE_HOME"], !state.isEmpty { return state + "/sessionctl" }
        return FileManager.default.homeDirectoryForCurrentUser.path + "/.local/state/sessionctl"
    }
}

/// Runs a command body and turns a library error into one line on standard error and an exit code.
func reporting<T>(_ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch let error as SessionKitError {
        Terminal.err("sessionctl: \(error.message)\(providerDetail(error))")
        throw ExitStatus.code(for: error)
    }
}

private func providerDetail(_ error: SessionKitError) -> String {
    guard let code = error.oauthError, !error.message.contains("(\(code))") else { return "" }
    return " (provider: \(code)\(error.oauthErrorDescription.map { ": \($0)" } ?? ""))"
}
