import ArgumentParser
import SecureStore
import SessionKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `sessionctl status`: whether a session is stored, who, until when, renewable, where.
struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show whether you are signed in, as whom, until when, and where the session is stored.",
        discussion: "Exit code 0 when signed in (valid or renewable), 1 when you must sign in.\n\n"
            + "Examples: sessionctl status; sessionctl status --json | jq .expires_at"
    )

    @OptionGroup var options: GlobalOptions

    @Flag(help: "Print a JSON object (stable shape, see README).")
    var json = false

    func run() async throws {
        let signedIn: Bool = try await reporting(profile: options.profileName) {
            let context = try SessionContext.make(options, warnOnFallback: false)
            let credentials = try await context.session.storedCredentials()
            let profile = try await context.session.cachedProfile()
            let now = Date()
            let claims = credentials?.idTokenClaims
            let report = StatusReport(
                profile: context.resolved.profile,
                signedIn: credentials != nil,
                valid: credentials?.isValid(now: now) ?? false,
                renewable: credentials?.canRenew ?? false,
                expiresAt: credentials?.expiresAt,
                subject: profile?.subject ?? claims?.subject,
                name: profile?.name ?? claims?.name,
                email: profile?.email ?? claims?.email,
                issuer: context.configuration.issuer.absoluteString,
                clientID: context.configuration.clientID,
                scope: credentials?.scope,
                store: .init(
                    backend: context.storeSelection.backendDescription,
                    location: context.storeFolder,
                    warning: context.storeSelection.warning
                )
            )
            if json {
                Terminal.out(try report.json())
            } else {
                report.printHuman(now: now)
            }
            return report.signedIn && (report.valid || report.renewable)
        }
        if !signedIn { throw ExitStatus.signInRequired }
    }
}

/// The `status --json` shape. Field names are stable; new fields may be added.
struct StatusReport: Encodable {
    struct Store: Encodable {
        /// `keyring+encrypted-file`, or `encrypted-file (key file...)` (see `StoreSelection`).
        let backend: String
        let location: String
        /// Set when the keyring was wanted but the key file is used.
        let warning: String?
    }

    let profile: String
    let signedIn: Bool
    let valid: Bool
    let renewable: Bool
    let expiresAt: Date?
    let subject: String?
    let name: String?
    let email: String?
    let issuer: String
    let clientID: String
    let scope: String?
    let store: Store

    enum CodingKeys: String, CodingKey {
        case profile, valid, renewable, subject, name, email, issuer, scope, store
        case signedIn = "signed_in"
        case expiresAt = "expires_at"
        case clientID = "client_id"
    }

    func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    func printHuman(now: Date) {
        if let warning = store.warning {
            Terminal.err("sessionctl: warning: \(warning) (pass --store keyring to fail instead)")
        }
        guard signedIn else {
            Terminal.out("Not signed in (profile '\(profile)'). Run `sessionctl login`.")
            Terminal.out("Store:        \(store.location) (\(store.backend))")
            return
        }
        let who = [name, email.map { "<\($0)>" }, subject.map { "(\($0))" }].compactMap { $0 }.joined(separator: " ")
        if who.isEmpty {
            // Some providers (django-oauth-toolkit's password and device grants) send no ID token.
            Terminal.out("\(Terminal.good("Signed in")) (no ID token yet: `sessionctl whoami` asks the provider who)")
        } else {
            Terminal.out("\(Terminal.good("Signed in")) as \(who)")
        }
        let state = valid ? "valid until" : Terminal.warn("expired:")
        Terminal.out("Access token: \(state) \(Terminal.describe(expiry: expiresAt, now: now))")
        Terminal.out(
            "Renewable:    \(renewable ? "yes (refresh token stored)" : Terminal.warn("no: sign in again when it expires"))"
        )
        Terminal.out("Provider:     \(issuer) (client \(clientID), profile '\(profile)')")
        Terminal.out("Stored in:    \(store.location) (\(store.backend) store)")
    }
}
