import ArgumentParser
import Foundation
import SessionKit

/// `sessionctl whoami`: the signed-in user's profile.
struct WhoAmI: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "whoami",
        abstract: "Show your profile (fetched from the provider; the cached one when offline)."
    )

    @OptionGroup var options: GlobalOptions

    @Flag(help: "Print the profile's claims as JSON.")
    var json = false

    func run() async throws {
        try await reporting {
            let profile = try await SessionContext.make(options).session.userInfo()
            if json {
                Terminal.out(String(decoding: try JSONValue.object(profile.claims).jsonData(), as: UTF8.self))
                return
            }
            Terminal.out(Terminal.bold(profile.name ?? profile.nickname ?? profile.subject))
            if let email = profile.email {
                Terminal.out("Email:   \(email)\(profile.emailVerified == true ? " (verified)" : "")")
            }
            Terminal.out("User id: \(profile.subject)")
            if let picture = profile.picture { Terminal.out("Picture: \(picture.absoluteString)") }
        }
    }
}

/// `sessionctl refresh`: renews now, whatever the expiry.
struct Refresh: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Renew the session now with the refresh token.")

    @OptionGroup var options: GlobalOptions

    func run() async throws {
        try await reporting {
            let credentials = try await SessionContext.make(options).session.renew()
            Terminal.out(
                "Renewed. Access token valid until \(Terminal.describe(expiry: credentials.expiresAt, now: Date()))")
        }
    }
}

/// `sessionctl logout`: revokes the refresh token at the provider and clears the session.
struct Logout: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Sign out: revoke the refresh token and clear the session (cleared even if revocation fails).",
        discussion: "A stored session that cannot be read (damaged, or written with another key) is deleted."
    )

    @OptionGroup var options: GlobalOptions

    @Flag(name: .customLong("no-revoke"), help: "Clear the session locally without revoking at the provider.")
    var noRevoke = false

    func run() async throws {
        try await reporting {
            let session = try SessionContext.make(options).session
            let result: SessionManager.LogoutResult
            do {
                result = try await session.logout(revoke: !noRevoke)
            } catch let error as SessionKitError where error.code == .storeCorrupted {
                // Signing out must always work: a session that cannot be read is deleted, unrevoked.
                try await session.discardUnreadableSession()
                Terminal.err(
                    "sessionctl: warning: \(error.message); it was deleted without revoking, since its tokens "
                        + "cannot be read")
                Terminal.out("Signed out.")
                return
            }
            guard result.hadSession else {
                Terminal.out("Not signed in; nothing to do.")
                return
            }
            Terminal.out("Signed out\(result.revoked ? "; the refresh token was revoked at the provider" : "").")
            if !noRevoke, let error = result.revocationError {
                Terminal.err(
                    Terminal.warn("warning: ") + "could not revoke at the provider (\(error.message)); "
                        + "the local session is cleared")
            }
        }
    }
}
