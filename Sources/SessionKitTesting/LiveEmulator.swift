public import AuthEmulator
import Foundation
import Logging
public import SessionKit

/// Starts live emulators for tests: loopback, a free port, test controls on, short lifetimes.
///
/// ```swift
/// let emulator = try await LiveEmulator.start()
/// defer { Task { await emulator.stop() } }
/// let provider = ProviderClient(configuration: try emulator.providerConfiguration())
/// ```
public enum LiveEmulator {
    /// The configuration tests start from: test controls on, a one-second device (and backchannel) poll interval, and
    /// otherwise the emulator's defaults.
    public static func testConfiguration() -> AuthEmulator.Configuration {
        var configuration = AuthEmulator.Configuration()
        configuration.testControlsEnabled = true
        configuration.lifetimes.devicePollInterval = 1
        configuration.lifetimes.backchannelPollInterval = 1
        return configuration
    }

    /// ``testConfiguration()`` changed by `configure`.
    public static func configuration(_ configure: (inout AuthEmulator.Configuration) -> Void)
        -> AuthEmulator.Configuration
    {
        var configuration = testConfiguration()
        configure(&configuration)
        return configuration
    }

    /// Starts an emulator, quiet below error level. Its RS256 key may be one this process's other emulators
    /// use too (each with its own `kid`): generating one per emulator took a third of a test run's CPU.
    public static func start(_ configuration: AuthEmulator.Configuration = testConfiguration()) async throws
        -> AuthEmulator
    {
        RSAKeyPool.enable(size: 8)
        var logger = Logger(label: "LiveEmulator")
        logger.logLevel = .error
        return try await AuthEmulator.start(configuration: configuration, logger: logger)
    }

    /// Runs `body` with a fresh emulator and stops it afterwards, whether `body` throws or not.
    public static func with<T: Sendable>(
        _ configuration: AuthEmulator.Configuration = testConfiguration(),
        _ body: (AuthEmulator) async throws -> T
    ) async throws -> T {
        let emulator = try await start(configuration)
        do {
            let result = try await body(emulator)
            await emulator.stop()
            return result
        } catch {
            await emulator.stop()
            throw error
        }
    }
}

extension AuthEmulator {
    /// The audience of the emulator's Management API: `<issuer>api/v2/`.
    public var managementAudience: String { issuer.absoluteString + "api/v2/" }

    /// The scope that grants the Management API calls on the user's own profile.
    public static let managementScope = "read:current_user update:current_user_metadata"

    /// A SessionKit configuration for one of the emulator's clients (the native one by default).
    public func providerConfiguration(
        clientID: String = AuthEmulator.Client.nativeID,
        clientSecret: String? = nil,
        scope: String = ProviderConfiguration.defaultScope,
        audience: String? = nil
    ) throws -> ProviderConfiguration {
        try ProviderConfiguration(
            issuer: issuer,
            clientID: clientID,
            clientSecret: clientSecret.map(Secret.init),
            audience: audience,
            scope: scope,
            requestTimeout: .seconds(5)
        )
    }
}
