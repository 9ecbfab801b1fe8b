import ArgumentParser
import AuthEmulator
import Foundation
import Logging
import SecureStore
import SessionKit

/// `sessionkit-emulator demo`: the whole session story against an in-process emulator, step by step.
struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Walk the whole session story against a local emulator and check every step.",
        discussion: "Starts the emulator on a free loopback port, then: sign in, store, relaunch and restore, "
            + "check validity locally and remotely, wait for expiry, renew silently with rotation, token exchange, "
            + "profile, metadata patch and read-back, logout with revocation, and proof that the old refresh token "
            + "is refused. Exits 0 only if every step did what it should."
    )

    @Option(name: .customLong("access-token-lifetime"), help: "Seconds the demo's access tokens live.")
    var accessTokenLifetime: Double = 3

    func run() async throws {
        let started = Date()
        var configuration = AuthEmulator.Configuration()
        configuration.testControlsEnabled = true
        configuration.lifetimes.accessToken = accessTokenLifetime
        var quiet = Logger(label: "sessionkit-emulator.demo")
        quiet.logLevel = .warning
        let emulator = try await AuthEmulator.start(configuration: configuration, logger: quiet)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sessionkit-demo-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        Output.out(Output.bold("SessionKit demo") + " — emulator at \(emulator.issuer.absoluteString)")
        let script = DemoScript(emulator: emulator, folder: folder)
        let passed = await script.run()
        await emulator.stop()
        let seconds = String(format: "%.1f", Date().timeIntervalSince(started))
        if passed {
            Output.out(Output.good("All \(script.stepCount) steps passed") + " in \(seconds) s.")
        } else {
            Output.err("sessionkit-emulator: the demo failed (see the step marked ✘)")
            throw ExitCode.failure
        }
    }
}
