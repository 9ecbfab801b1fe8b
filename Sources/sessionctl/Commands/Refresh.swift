import ArgumentParser
import SessionKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `sessionctl refresh`: renews now, whatever the expiry.
struct Refresh: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Renew the session now with the refresh token.",
        discussion: "Example: sessionctl refresh && sessionctl status")

    @OptionGroup var options: GlobalOptions

    func run() async throws {
        try await reporting(profile: options.profileName) {
            let credentials = try await SessionContext.make(options).session.renew()
            Terminal.out(
                "Renewed. Access token valid until \(Terminal.describe(expiry: credentials.expiresAt, now: Date()))")
        }
    }
}
