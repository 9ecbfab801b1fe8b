import AuthEmulator
import Foundation
import SecureStore
import SessionKit
import SessionKitPostgres
import SessionKitServer
import SessionKitTesting

/// Sessions whose access tokens have expired, created straight in a deployment's store (password grant as the
/// confidential client), so that the next forwarded call must renew them.
enum ExpiredSessions {
    static func create(_ count: Int, emulator: AuthEmulator, store: any AsyncSecureStore) async throws -> [SessionID] {
        try await create(count, emulator: emulator, store: store, as: expired)
    }

    /// Sessions created the same way whose access tokens are still valid.
    static func createValid(_ count: Int, emulator: AuthEmulator, store: any AsyncSecureStore) async throws
        -> [SessionID]
    {
        try await create(count, emulator: emulator, store: store, as: { $0 })
    }

    private static func create(
        _ count: Int, emulator: AuthEmulator, store: any AsyncSecureStore, as stored: (Credentials) -> Credentials
    ) async throws -> [SessionID] {
        let configuration = try emulator.providerConfiguration(
            clientID: AuthEmulator.Client.confidentialID, clientSecret: AuthEmulator.Client.confidentialSecret)
        let sessions = SessionDirectory(provider: ProviderClient(configuration: configuration), store: store)
        var ids: [SessionID] = []
        for _ in 0..<count {
            let credentials = try await sessions.provider.signIn(
                username: AuthEmulator.User.aliceEmail, password: Secret(AuthEmulator.User.alicePassword))
            ids.append(try await sessions.create(stored(credentials)))
        }
        return ids
    }

    /// `credentials` as they are once the access token has expired.
    static func expired(_ credentials: Credentials) -> Credentials {
        var expired = credentials
        expired.expiresAt = Date(timeIntervalSinceNow: -1)
        expired.receivedAt = Date(timeIntervalSinceNow: -3600)
        return expired
    }
}
