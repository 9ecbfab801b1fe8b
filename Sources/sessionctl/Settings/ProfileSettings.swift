import SessionKit
import SessionKitSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One profile's saved settings, in `$XDG_CONFIG_HOME/sessionctl/config.json` (else `~/.config/...`).
struct ProfileSettings: Encodable, Equatable {
    var issuer: String?
    var clientID: String?
    var audience: String?
    var scope: String?
    var redirectPort: Int?
    /// The exact redirect URI for browser sign-ins, as given to `--redirect-uri`.
    var redirectURI: String?
    var endpoints: Endpoints?
    /// How the client secret is sent: `auto`, `basic` or `post`.
    var clientAuth: String?
    /// Whether `configure` saved a client secret in the secure store (the secret itself is never here).
    var clientSecretInStore: Bool?
    /// Whether tokens are bound to a DPoP key kept in the secure store (`configure --dpop`).
    var dpop: Bool?
    /// Forges, as `HOST:PORT`, that `git-credential` may give this profile's tokens to besides the issuer's own
    /// host and port (`configure --git-host`); see ``GitHostClaim``.
    var gitHosts: [String]?
    /// A PEM file of a certificate authority trusted besides the system's (`configure --ca-file`), as an absolute
    /// path.
    var caFile: String?

    /// Endpoint overrides for providers whose discovery omits some.
    struct Endpoints: Encodable, Equatable {
        var authorization: String?
        var token: String?
        var userInfo: String?
        var revocation: String?
        var deviceAuthorization: String?
        var jwks: String?
    }

    enum CodingKeys: String, CodingKey {
        case issuer
        case clientID = "client_id"
        case audience, scope
        case redirectPort = "redirect_port"
        case redirectURI = "redirect_uri"
        case endpoints
        case clientAuth = "client_auth"
        case clientSecretInStore = "client_secret_in_secure_store"
        case dpop
        case gitHosts = "git_hosts"
        case caFile = "ca_file"
    }
}

/// The config file: profiles by name.
struct ConfigFile: Encodable {
    var profiles: [String: ProfileSettings] = [:]

    /// The config file's path, from `XDG_CONFIG_HOME` or the home folder.
    static var path: URL { URL(fileURLWithPath: filePath) }

    /// The same path as text; built without `URL`, whose path appending costs `sessionctl token` more
    /// than reading the file.
    static var filePath: String {
        let base = Environment.value("XDG_CONFIG_HOME") ?? (Environment.home + "/.config")
        return base + "/sessionctl/config.json"
    }

    /// Reads the config file; a missing file is an empty configuration, a malformed one an error.
    static func load() throws(SessionKitError) -> ConfigFile {
        let url = path
        guard let data = FileContents.of(filePath) else { return ConfigFile() }
        do {
            return try ConfigFile(json: try JSONValue(parsing: data))
        } catch {
            throw SessionKitError(
                code: .invalidConfiguration,
                message: "the config file \(url.path) is not valid JSON for sessionctl (\(error)); fix or delete it"
            )
        }
    }

    /// Writes the config file atomically: folder 0700, file 0600.
    func save() throws(SessionKitError) {
        let url = Self.path
        let folder = url.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(
                at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            let temporary = folder.appendingPathComponent(".config.json.\(UUID().uuidString)")
            guard
                FileManager.default.createFile(
                    atPath: temporary.path, contents: try encoder.encode(self), attributes: [.posixPermissions: 0o600])
            else {
                throw CocoaError(.fileWriteUnknown)
            }
            // rename(2) replaces the old file atomically: readers see the old file or the new one.
            guard rename(temporary.path, url.path) == 0 else {
                let code = errno
                try? FileManager.default.removeItem(at: temporary)
                throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
            }
        } catch {
            throw SessionKitError(
                code: .invalidConfiguration,
                message:
                    "cannot write the config file \(url.path) (\(error.reason)); check the folder's permissions"
            )
        }
    }
}
