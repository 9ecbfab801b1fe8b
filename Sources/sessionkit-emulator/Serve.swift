import ArgumentParser
import AuthEmulator
import Foundation

/// `sessionkit-emulator serve`: runs the local Auth0-compatible provider in the foreground until Ctrl-C.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the local Auth0-compatible identity provider until Ctrl-C.",
        discussion: "Prints the issuer URL and the seeded clients and users. Configure sessionctl against it with "
            + "`sessionctl configure --issuer ISSUER --client-id sessionkit-native`."
    )

    @Option(help: "The port (default: a free one).") var port: Int?
    @Option(help: "A JSON configuration file (clients, users, lifetimes, ...).") var config: String?
    @Flag(name: .customLong("test-controls"), help: "Enable the /__emulator/ test-control endpoints.")
    var testControls = false
    @Option(name: .customLong("auto-sign-in"), help: "Sign this user in at /authorize without a form (test mode).")
    var autoSignIn: String?
    @Option(
        name: .customLong("public-issuer"),
        help: ArgumentHelp(
            "The issuer to publish when clients reach the emulator through a TLS front or a proxy "
                + "(e.g. https://idp.test/; default: http://127.0.0.1:PORT/).",
            valueName: "URL"))
    var publicIssuer: String?

    func run() async throws {
        var configuration: AuthEmulator.Configuration
        do {
            configuration =
                try config.map { try AuthEmulator.Configuration.load(contentsOf: URL(fileURLWithPath: $0)) } ?? .init()
        } catch {
            Output.err("sessionkit-emulator: the configuration \(config ?? "") cannot be read: \(error)")
            throw ExitCode(4)
        }
        if let port { configuration.port = port }
        if testControls { configuration.testControlsEnabled = true }
        if let autoSignIn { configuration.autoSignInUser = autoSignIn }
        if let publicIssuer { configuration.publicIssuer = publicIssuer }
        let emulator: AuthEmulator
        do {
            emulator = try await AuthEmulator.start(configuration: configuration)
        } catch {
            Output.err("sessionkit-emulator: the emulator could not start: \(error)")
            throw ExitCode(4)
        }
        Output.out(emulator.summary)
        Output.out(
            "\nTry it from another terminal:\n  sessionctl configure --issuer \(emulator.issuer.absoluteString) "
                + "--client-id \(AuthEmulator.Client.nativeID)\n  sessionctl login\n")
        Output.out("Press Ctrl-C to stop.")
        await SignalWaiter.waitForTermination()
        await emulator.stop()
    }
}
