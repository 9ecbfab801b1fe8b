import ArgumentParser
import Crypto
import Foundation
import SessionKit
import SessionKitBFF

/// The example's flags, with defaults that work against `sessionkit-emulator serve --port 9400` and the
/// PostgreSQL of scripts/postgres-start.sh.
struct ExampleOptions: ParsableArguments {
    @Option(help: "The port to listen on.") var port = 8080
    @Option(help: "The address to listen on.") var host = "127.0.0.1"
    @Option(name: .customLong("public-url"), help: "The URL browsers use (default: http://127.0.0.1:PORT).")
    var publicURL: String?
    @Option(help: "The identity provider's issuer.") var issuer = "http://127.0.0.1:9400/"
    @Option(name: .customLong("client-id"), help: "The confidential client's id.") var clientID = "sessionkit-backend"
    @Option(
        name: .customLong("client-secret-file"),
        help: ArgumentHelp(
            "A file holding the client secret (mode 0600). Default: the emulator's published demo secret, for a "
                + "loopback issuer only."))
    var clientSecretFile: String?
    @Option(
        help: ArgumentHelp(
            "Where sessions live: postgres (shared by every instance; the default) or memory (this one instance "
                + "only: sessions end when it stops, and a second instance would not see them).",
            valueName: "postgres|memory"))
    var store: SessionStoreKind = .postgres
    @Option(
        name: .customLong("database-url"),
        help: "postgres://user:password@host:port/database (default: $DATABASE_URL, else .postgres/url).")
    var databaseURL: String?
    @Option(help: "The API that /api/... is forwarded to (default: the issuer, so /api/userinfo is its /userinfo).")
    var upstream: String?
    @Option(
        name: .customLong("sealing-key-file"),
        help: ArgumentHelp(
            "A file with the 32-byte key (64 hex digits) that seals sessions at rest; every instance needs the same "
                + "one. Default: ~/.local/state/sessionkit-bff/sealing-key, created on first use."))
    var sealingKeyFile: String?
    @Option(help: "The store's service name: instances of one app share it.") var service = "sessionkit-bff"
    @Option(name: .customLong("min-token-ttl"), help: "Seconds an access token must still be valid when forwarded.")
    var minTokenTTL: Double = 30
    @Option(
        name: .customLong("profile-keys"),
        help: ArgumentHelp(
            "Adds /auth/profile and /auth/profile/metadata, letting users change these user_metadata keys "
                + "(comma-separated, such as theme,language); the client needs a client grant on the Management API."))
    var profileKeys: String?
    @Flag(
        name: .customLong("par"),
        help: ArgumentHelp(
            "Push each sign-in's parameters to the provider first (a pushed authorization request, RFC 9126) even "
                + "where it does not require it; a provider that requires it gets one without this flag."))
    var par = false
    @Flag(
        name: .customLong("no-event-loop-forwarding"),
        help: ArgumentHelp(
            "Forward every /api request through the router, Swift's tasks and AsyncHTTPClient, so that router "
                + "middleware sees each one; by default bodiless calls with a token in memory are forwarded from "
                + "the connection's event loop, at about half the CPU."))
    var routerForwardingOnly = false

    /// What the flags resolve to.
    struct Settings {
        var provider: ProviderConfiguration
        var bff: BackendForFrontend.Configuration
        /// The database, for the `postgres` store; `nil` for `memory`.
        var databaseURL: String?
        var sealingKey: SymmetricKey
        /// The key that seals the cookies: derived from the sealing key (HKDF inside the back end), so every
        /// instance that shares the one shares the other.
        var cookieSecret: SymmetricKey { sealingKey }
        var warning: String?
    }

    func settings() throws -> Settings {
        guard let issuerURL = URL(string: issuer) else { throw ValidationError("--issuer is not a URL: \(issuer)") }
        let (secret, warning) = try clientSecret(issuer: issuerURL)
        var provider = try ProviderConfiguration(issuer: issuerURL, clientID: clientID, clientSecret: secret)
        if par { provider.pushedAuthorization = .always }
        guard let publicURL = URL(string: self.publicURL ?? "http://127.0.0.1:\(port)") else {
            throw ValidationError("--public-url is not a URL")
        }
        guard let upstreamURL = URL(string: upstream ?? issuer) else {
            throw ValidationError("--upstream is not a URL")
        }
        var bff = try BackendForFrontend.Configuration(
            publicURL: publicURL, upstream: upstreamURL, minimumTokenLifetime: minTokenTTL)
        bff.forwardsOnEventLoop = !routerForwardingOnly
        bff.profile = profileKeys.map { keys in
            .init(editableMetadataKeys: Set(keys.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }))
        }
        return Settings(
            provider: provider, bff: bff, databaseURL: store == .postgres ? try database() : nil,
            sealingKey: try SealingKeyFile.load(sealingKeyFile),
            warning: warning)
    }

    private func clientSecret(issuer: URL) throws -> (Secret, String?) {
        if let clientSecretFile {
            let text = try SecretFile.read(clientSecretFile, what: "client secret")
            return (Secret(text.trimmingCharacters(in: .whitespacesAndNewlines)), nil)
        }
        let host = issuer.host ?? ""
        guard host == "127.0.0.1" || host == "localhost" || host == "::1" || host == "[::1]" else {
            throw ValidationError("--client-secret-file is required for an issuer that is not the local emulator")
        }
        // The emulator's seeded confidential client; its secret is a public fixture.
        return (
            Secret("sessionkit-backend-demo-secret-not-for-production"),
            "no --client-secret-file: using the emulator's published demo secret (for the local emulator only)"
        )
    }

    private func database() throws -> String {
        if let databaseURL { return databaseURL }
        if let url = ProcessInfo.processInfo.environment["DATABASE_URL"], !url.isEmpty { return url }
        if let text = try? String(contentsOfFile: ".postgres/url", encoding: .utf8) {
            return text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        throw ValidationError(
            "no database: pass --database-url, set DATABASE_URL, or start one with scripts/postgres-start.sh")
    }
}

/// Where the example keeps sessions (`--store`).
enum SessionStoreKind: String, ExpressibleByArgument, CaseIterable {
    /// PostgreSQL, shared by every instance.
    case postgres
    /// This process's memory: one instance, sessions gone when it stops.
    case memory
}
