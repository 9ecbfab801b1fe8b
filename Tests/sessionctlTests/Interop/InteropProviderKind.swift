import Foundation
import Testing

/// The providers the shared scenarios are parameterised over.
enum InteropProviderKind: String, Sendable, CustomTestStringConvertible {
    case emulator
    case djangoOAuthToolkit
    case djangoOIDCProvider

    var testDescription: String {
        switch self {
        case .emulator: "AuthEmulator"
        case .djangoOAuthToolkit: "django-oauth-toolkit"
        case .djangoOIDCProvider: "django-oidc-provider"
        }
    }

    /// The emulator always; each third-party provider when it is running, or when
    /// `SESSIONKIT_REQUIRE_INTEROP=1` (as in CI), where a missing server then fails its scenarios instead of
    /// leaving them out.
    static var covered: [InteropProviderKind] {
        let required = ProcessInfo.processInfo.environment["SESSIONKIT_REQUIRE_INTEROP"] == "1"
        var kinds: [InteropProviderKind] = [.emulator]
        if required || DjangoInteropProvider.running != nil { kinds.append(.djangoOAuthToolkit) }
        if required || DjangoOIDCProviderInteropProvider.running != nil { kinds.append(.djangoOIDCProvider) }
        return kinds
    }

    /// The covered providers that have a device-authorization endpoint (django-oidc-provider has none).
    static var coveredWithDeviceFlow: [InteropProviderKind] {
        covered.filter { $0 != .djangoOIDCProvider }
    }

    /// The covered providers whose set-up has a confidential client (django-oauth-toolkit's has none).
    static var coveredWithConfidentialClient: [InteropProviderKind] {
        covered.filter { $0 != .djangoOAuthToolkit }
    }

    /// Runs `body` with this provider, stopping it afterwards whether `body` throws or not.
    func with(_ body: (any InteropProvider) async throws -> Void) async throws {
        let provider: any InteropProvider =
            switch self {
            case .emulator: try await EmulatorInteropProvider.start()
            case .djangoOAuthToolkit: try DjangoInteropProvider.start()
            case .djangoOIDCProvider: try DjangoOIDCProviderInteropProvider.start()
            }
        do {
            try await body(provider)
            await provider.stop()
        } catch {
            await provider.stop()
            throw error
        }
    }
}
