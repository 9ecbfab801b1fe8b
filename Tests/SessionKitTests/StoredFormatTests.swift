import Foundation
import SecureStore
import SessionKitSupport
import SessionKitTestSupport
import SessionKitTesting
import Testing

@testable import SessionKit

/// Every session record form SessionKit has written (`Tests/Fixtures/StoredFormats`, described in
/// `docs/stored-formats.md`) reads into the same session, and is written back in the newest form with nothing lost.
@Suite("Stored formats: every record ever written reads today")
struct StoredFormatTests {
    /// The session every record fixture holds.
    static func expected(name: String) -> SessionRecord {
        var record = SessionRecord(generation: 3)
        record.credentials = Credentials(
            accessToken: Secret("fixture.access-token"), tokenType: "Bearer", idToken: Secret("fixture.id-token"),
            refreshToken: Secret("fixture.refresh-token"),
            expiresAt: Date(timeIntervalSinceReferenceDate: 816_987_600.5),
            scope: "openid profile offline_access", receivedAt: Date(timeIntervalSinceReferenceDate: 816_984_000.25),
            additionalParameters: ["x_fixture": .string("kept")])
        record.profile = UserProfile(claims: [
            "sub": .string("auth0|fixture"), "name": .string("Ada Fixture"), "email": .string("ada@example.com"),
            "email_verified": .bool(true), "picture": .string("https://example.com/ada.png"),
        ])
        record.renewal = RenewalLease(
            owner: "fixture-owner", pid: 4242, host: "fixture-host",
            startedAt: Date(timeIntervalSinceReferenceDate: 816_987_540),
            expiresAt: Date(timeIntervalSinceReferenceDate: 816_987_630))
        // Tokens for other APIs came with 365df0b.
        if !["record-7166bd7.json", "record-8c13e80.json"].contains(name) {
            record.apiCredentials["https://payments.example/ pay read"] = Credentials(
                accessToken: Secret("fixture.payments-access-token"), tokenType: "Bearer",
                expiresAt: Date(timeIntervalSinceReferenceDate: 816_987_000.75), scope: "pay read",
                receivedAt: Date(timeIntervalSinceReferenceDate: 816_983_400.5))
        }
        return record
    }

    @Test(
        "each record fixture reads into its session, by the record reader and by Codable",
        arguments: StoredFormatFixtures.recordNames)
    func reads(name: String) throws {
        let data = try StoredFormatFixtures.data(name)
        let record = try SessionRecord.stored(data)
        #expect(record == Self.expected(name: name))
        #expect(record.credentials?.expiresAt == Date(timeIntervalSince1970: 1_795_294_800.5))
        #expect(record.profile?.email == "ada@example.com")
        #expect(record.renewal?.pid == 4242)
        #expect(try JSONDecoder().decode(SessionRecord.self, from: data) == record)
    }

    @Test(
        "an old record is written back in the newest form and reads again with nothing lost",
        arguments: StoredFormatFixtures.recordNames)
    func roundTrip(name: String) throws {
        let old = try SessionRecord.stored(try StoredFormatFixtures.data(name))
        let written = try old.storedData()
        #expect(try SessionRecord.stored(written) == old)
        // Dates go back as seconds since 2001, whatever epoch they were read in.
        let credentials = try JSONParser.parse(written).objectValue?.member("credentials")?.objectValue
        #expect(credentials?.member("received_at")?.doubleValue == 816_984_000.25)
    }

    @Test("the current writer writes record-current.json byte for byte")
    func currentForm() throws {
        let written = try Self.expected(name: "record-current.json").storedData()
        if ProcessInfo.processInfo.environment["SESSIONKIT_WRITE_FIXTURES"] == "1" {
            try written.write(to: URL(fileURLWithPath: StoredFormatFixtures.folder + "/record-current.json"))
        }
        #expect(written == (try StoredFormatFixtures.data("record-current.json")))
    }

    @Test("credentials of 2001's epoch past the threshold's year are not taken for 1970's")
    func epochBoundary() throws {
        let recent = Credentials(
            accessToken: Secret("a"), tokenType: "Bearer", expiresAt: nil,
            receivedAt: Date(timeIntervalSinceReferenceDate: 0.5))
        let record = SessionRecord(credentials: recent)
        #expect(try SessionRecord.stored(try record.storedData()) == record)
        let unix = #"{"version":1,"access_token":"a","token_type":"Bearer","received_at":1500000000}"#
        let read = try JSONDecoder().decode(Credentials.self, from: Data(unix.utf8))
        #expect(read.receivedAt == Date(timeIntervalSince1970: 1_500_000_000))
    }
}
