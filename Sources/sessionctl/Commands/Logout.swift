import ArgumentParser
import SessionKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `sessionctl logout`: revokes the refresh token at the provider and clears the session.
struct Logout: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Sign out: revoke the refresh token and clear the session (cleared even if revocation fails).",
        discussion: "A stored session that cannot be read (damaged, or written with another key) is deleted.\n\n"
            + "Examples: sessionctl logout; sessionctl logout --no-revoke (clear here only)"
    )

    @OptionGroup var options: GlobalOptions

    @Flag(name: .customLong("no-revoke"), help: "Clear the session locally without revoking at the provider.")
    var noRevoke = false

    func run() async throws {
        try await reporting(profile: options.profileName) {
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
                    Terminal.warn("warning: ")
                        + "could not revoke at the provider (\(error.messageForCLI(profile: options.profileName))); "
                        + "the local session is cleared")
            }
        }
    }
}
