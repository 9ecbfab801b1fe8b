import Foundation
import PostgresNIO
import SecureStore
import SecureStoreTesting
import SessionKitTesting
import Testing

@testable import SessionKitServer

@Suite("PostgresSessionStore conformance", .enabled(if: TestPostgres.shouldRun, TestPostgres.skipNote))
struct ConformanceTests {
    @Test("The SecureStore conformance suite", arguments: SecureStoreConformance.Check.allCases)
    func conformance(_ check: SecureStoreConformance.Check) async throws {
        _ = try TestPostgres.configuration()
        try await SecureStoreConformance { try TestPostgres.store(service: $0) }.run(check)
    }

    @Test("CI's requirement: SESSIONKIT_REQUIRE_POSTGRES=1 needs SESSIONKIT_POSTGRES_URL")
    func urlIsThereWhenRequired() throws {
        if TestPostgres.isRequired { #expect(TestPostgres.url != nil, "\(TestPostgres.Missing())") }
    }

    @Test("migrate() is idempotent and records its versions")
    func migrateIsIdempotent() throws {
        let store = try TestPostgres.store()
        #expect(try store.migrate() == [])
        let versions = try store.raw("SELECT version FROM sessionkit_schema_migrations ORDER BY version")
            .map { try $0.decode(Int.self) }
        #expect(versions == PostgresSessionStore.migrations.map(\.version))
    }

    @Test("The journal round-trips, is per key and per service, and deleteAll clears it")
    func journal() throws {
        let store = try TestPostgres.store()
        let other = try TestPostgres.store()
        #expect(try store.journalEntry(forKey: "s") == nil)
        try store.setJournalEntry(Data("one".utf8), forKey: "s")
        try store.setJournalEntry(Data("two".utf8), forKey: "s")
        #expect(try store.journalEntry(forKey: "s") == Data("two".utf8))
        #expect(try other.journalEntry(forKey: "s") == nil)
        #expect(try store.keys() == [], "a journal entry is not an item")
        try store.setJournalEntry(nil, forKey: "s")
        #expect(try store.journalEntry(forKey: "s") == nil)
        try store.setJournalEntry(Data("three".utf8), forKey: "s")
        try store.deleteAll()
        #expect(try store.journalEntry(forKey: "s") == nil)
    }
}
