import SecureStore
import SessionKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A confidential client's secret for `sessionctl`: from standard input, a file that only its owner can read,
/// `SESSIONCTL_CLIENT_SECRET`, or the secure store where `configure` saved it. Never from a flag's value,
/// which any user could read in `ps`, and never in `config.json`.
enum ClientSecret {
    /// The secret given to this run (`--client-secret-stdin`, `--client-secret-file`, then the environment),
    /// or `nil` when none was.
    static func given(stdin: Bool, file: String?) throws(SessionKitError) -> Secret? {
        if stdin {
            return try checked(
                Terminal.readStandardInput(),
                from: "standard input")
        }
        if let file { return try read(file) }
        if let text = Environment.value("SESSIONCTL_CLIENT_SECRET") {
            return try checked(text, from: "SESSIONCTL_CLIENT_SECRET")
        }
        return nil
    }

    /// The secure-store key under which `configure` keeps `profile`'s secret.
    static func storeKey(profile: String) -> String { "client-secret:" + profile }

    /// The secret `configure` saved for `profile`.
    static func stored(in store: EncryptedFileStore, profile: String) throws(SessionKitError) -> Secret {
        let text: String?
        do {
            text = try store.string(forKey: storeKey(profile: profile))
        } catch {
            throw SessionKitError(storeError: error)
        }
        guard let text else {
            throw SessionKitError(
                code: .invalidConfiguration,
                message: "profile '\(profile)' has a client secret, but the secure store no longer holds it; run "
                    + "`sessionctl configure --client-secret-file FILE` (or --client-secret-stdin) again")
        }
        return Secret(text)
    }

    /// Reads `path`, refusing a file that group or others may read, as ssh does for private keys.
    private static func read(_ path: String) throws(SessionKitError) -> Secret {
        let mode: Int
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            // An `Int` (Foundation's NSNumber on Apple platforms), a `UInt` in FoundationEssentials.
            let permissions = attributes[.posixPermissions]
            mode = (permissions as? Int) ?? (permissions as? UInt).map { Int($0) } ?? 0o777
        } catch {
            throw SessionKitError(
                code: .invalidConfiguration,
                message: "cannot read the client secret file \(path) (\(error.reason)); check the path")
        }
        guard mode & 0o077 == 0 else {
            throw SessionKitError(
                code: .invalidConfiguration,
                message: "the client secret file \(path) can be read by other users (mode "
                    + "\(String(mode & 0o777, radix: 8))); run `chmod 600 \(path)` and try again")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SessionKitError(
                code: .invalidConfiguration, message: "cannot read the client secret file \(path); check the path")
        }
        return try checked(String(decoding: data, as: UTF8.self), from: path)
    }

    /// `text` without its final line break; an empty secret is an error, not "no secret".
    private static func checked(_ text: String, from origin: String) throws(SessionKitError) -> Secret {
        var trimmed = Substring(text)
        while let last = trimmed.last, last == "\n" || last == "\r" { trimmed.removeLast() }
        guard !trimmed.isEmpty else {
            throw SessionKitError(
                code: .invalidConfiguration,
                message: "the client secret from \(origin) is empty; give the secret the provider issued")
        }
        return Secret(String(trimmed))
    }
}
