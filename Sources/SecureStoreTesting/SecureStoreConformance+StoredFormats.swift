public import Foundation
import SecureStore
import Testing

extension SecureStoreConformance {
    /// A session record as SessionKit writes it today (`record-current.json` of SessionKit's golden fixtures):
    /// what ``Check/storedFormats`` stores when it is given nothing else.
    public static let currentRecord = Data(
        #"""
        {"api_credentials":{"https://payments.example/ pay read":{"access_token":"fixture.payments-access-token",\#
        "expires_at":816987000.75,"received_at":816983400.5,"scope":"pay read","token_type":"Bearer","version":1}},\#
        "credentials":{"access_token":"fixture.access-token","additional_parameters":{"x_fixture":"kept"},\#
        "expires_at":816987600.5,"id_token":"fixture.id-token","received_at":816984000.25,\#
        "refresh_token":"fixture.refresh-token","scope":"openid profile offline_access","token_type":"Bearer",\#
        "version":1},"generation":3,"profile":{"email":"ada@example.com","email_verified":true,\#
        "name":"Ada Fixture","picture":"https://example.com/ada.png","sub":"auth0|fixture"},\#
        "renewal":{"expiresAt":816987630.0,"host":"fixture-host","owner":"fixture-owner","pid":4242,\#
        "startedAt":816987540.0},"version":1}
        """#.utf8)

    /// The suite with ``Check/storedFormats`` storing `values` (by name) instead of ``currentRecord``: a store
    /// must give back every form a session has ever been stored in, byte for byte.
    ///
    /// ```swift
    /// try await SecureStoreConformance { MemoryStore(service: $0, backing: backing) }
    ///     .storing(try StoredFormatFixtures.storedValues())
    ///     .run(.storedFormats)
    /// ```
    public func storing(_ values: [String: Data]) -> SecureStoreConformance {
        var suite = self
        suite.storedValues = values
        return suite
    }

    func checkStoredFormats(_ store: any AsyncSecureStore, service: String) async throws {
        #expect(!storedValues.isEmpty, "give storing(_:) at least one stored value")
        let keys = storedValues.keys.sorted()
        for key in keys {
            try await store.setData(try #require(storedValues[key]), forKey: key)
        }
        let fresh = try await makeStore(service)
        for key in keys {
            let value = storedValues[key]
            #expect(try await store.data(forKey: key) == value, "\(key) read back")
            #expect(try await fresh.data(forKey: key) == value, "\(key) read back by a new store object")
            let kept = try await store.update(forKey: key) { $0 }
            #expect(kept == value, "\(key) through an update that keeps it")
            #expect(try await fresh.data(forKey: key) == value, "\(key) after the update")
        }
        #expect(try await store.keys() == keys)
    }
}
