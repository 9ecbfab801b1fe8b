import ArgumentParser
import SessionKit
import SessionKitSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `sessionctl whoami`: the signed-in user's profile.
struct WhoAmI: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "whoami",
        abstract: "Show your profile (fetched from the provider; the cached one when offline).",
        discussion: "Examples: sessionctl whoami; sessionctl whoami --json"
    )

    @OptionGroup var options: GlobalOptions

    @Flag(help: "Print the profile's claims as JSON.")
    var json = false

    func run() async throws {
        try await reporting(profile: options.profileName) {
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
