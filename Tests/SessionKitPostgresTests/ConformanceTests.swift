import Foundation
import PostgresNIO
import SecureStore
import SecureStoreTesting
import SessionKitPostgresTestSupport
import SessionKitTestSupport
import Testing

@testable import SessionKitPostgres
@testable import SessionKitServer

@Suite("PostgresSessionStore conformance", .enabled(if: TestPostgres.shouldRun, TestPostgres.skipNote))
struct ConformanceTests {
    @Test("The SecureStore conformance suite", arguments: SecureStoreConformance.Check.allCases)
    func conformance(_ check: SecureStoreConformance.Check) async throws {
        let fixtures = try StoredFormatFixtures.storedValues()
        _ = try TestPostgres.configuration()
        try await SecureStoreConformance { try await TestPostgres.store(service: $0) }.storing(fixtures).run(check)
    }

    @Test("CI's requirement: SESSIONKIT_REQUIRE_POSTGRES=1 needs SESSIONKIT_POSTGRES_URL")
    func urlIsThereWhenRequired() async throws {
        if TestPostgres.isRequired { #expect(TestPostgres.url != nil, "\(TestPostgres.Missing())") }
    }

    @Test("migrate() is idempotent and records its versions")
    func migrateIsIdempotent() async throws {
        let store = try await TestPostgres.store()
        #expect(try await store.migrate() == [])
        let versions = try await store.raw("SELECT version FROM sessionkit_schema_migrations ORDER BY version")
            .map { try $0.decode(Int.self) }
        #expect(versions == Migration.all.map(\.version))
    }

    @Test("The journal round-trips, is per key and per service, and deleteAll clears it")
    func journal() async throws {
        let store = try await TestPostgres.store()
        let other = try await TestPostgres.store()
        #expect(try await store.journalEntry(forKey: "s") == nil)
        try await store.setJournalEntry(Data("one".utf8), forKey: "s")
        try await store.setJournalEntry(Data("two".utf8), forKey: "s")
        #expect(try await store.journalEntry(forKey: "s") == Data("two".utf8))
        #expect(try await other.journalEntry(forKey: "s") == nil)
        #expect(try await store.keys() == [], "a journal entry is not an item")
        try await store.setJournalEntry(nil, forKey: "s")
        #expect(try await store.journalEntry(forKey: "s") == nil)
        try await store.setJournalEntry(Data("three".utf8), forKey: "s")
        try await store.deleteAll()
        #expect(try await store.journalEntry(forKey: "s") == nil)
    }
}
