import Foundation
import SecureStore
import SessionKit
import SessionKitBFF
import SessionKitServer
import Testing

/// Configuration mistakes are refused when the back end is made, with what to change; nothing falls back.
@Suite("BFF configuration")
struct ConfigurationTests {
    /// Makes a back end and shuts it down (its HTTP client must be shut down before it goes).
    func make(_ configuration: BackendForFrontend.Configuration) async throws {
        let provider = ProviderClient(
            configuration: try ProviderConfiguration(
                issuer: URL(string: "https://id.example.com/")!, clientID: "app"))
        let sessions = SessionDirectory(provider: provider, store: MemoryStore(service: "tests.bff.configuration"))
        try await BackendForFrontend(configuration: configuration, sessions: sessions).shutdown()
    }

    func refusal(_ body: () async throws -> Void) async -> BackendForFrontendError? {
        do {
            try await body()
            return nil
        } catch let error as BackendForFrontendError {
            return error
        } catch {
            return nil
        }
    }

    @Test("plain http off loopback, a bad prefix, a bad upstream or anti-forgery header: refused, saying why")
    func refused() async throws {
        let local = URL(string: "http://127.0.0.1:8080")!
        #expect(
            await refusal {
                _ = try BackendForFrontend.Configuration(publicURL: URL(string: "http://app.example.com")!)
            }?
            .message.contains("https") == true)
        #expect(
            await refusal { _ = try BackendForFrontend.Configuration(publicURL: local, prefix: "bff/") }?.message
                .contains("prefix") == true)
        #expect(
            await refusal {
                try await make(.init(publicURL: local, upstream: URL(string: "ftp://files.example.com/")!))
            }?.message.contains("upstream") == true)
        #expect(
            await refusal { try await make(.init(publicURL: local, antiForgeryHeader: "X CSRF")) }?.message
                .contains("anti-forgery header 'X CSRF'") == true)
        try await make(.init(publicURL: local, antiForgeryHeader: "X-Requested-By"))
    }
}
