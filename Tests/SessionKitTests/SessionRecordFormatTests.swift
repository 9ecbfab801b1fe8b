import Foundation
import SessionKitSupport
import Testing

@testable import SessionKit

/// The stored record is written and read by hand (``JSONTextWriter``, ``JSONParser``); `Codable` must agree with
/// both on every field, since earlier versions of SessionKit wrote and read it with `Codable`.
@Suite("Session record: what Codable writes, the reader reads back")
struct SessionRecordFormatTests {
    private static func full() -> SessionRecord {
        var record = SessionRecord(generation: 41)
        record.credentials = Credentials(
            accessToken: Secret("at.\u{e9}\u{1F600}"), tokenType: "DPoP", idToken: Secret("id.token.value"),
            refreshToken: Secret("rt"), expiresAt: Date(timeIntervalSinceReferenceDate: 785_000_000.123456789),
            scope: "openid offline_access", issuedTokenType: "urn:ietf:params:oauth:token-type:access_token",
            receivedAt: Date(timeIntervalSinceReferenceDate: 784_999_000.987654321),
            additionalParameters: [
                "extra": .object(["n": .int(1), "d": .double(0.5), "a": .array([.null, .bool(true)])])
            ])
        record.profile = UserProfile(claims: ["sub": .string("auth0|1"), "name": .string("Ada \"A\" Lovelace")])
        record.apiCredentials["https://payments.example/ pay read"] = Credentials(
            accessToken: Secret("api.at"), tokenType: "Bearer", expiresAt: Date(timeIntervalSinceReferenceDate: 9.75),
            scope: "pay read", receivedAt: Date(timeIntervalSinceReferenceDate: 2.5))
        record.renewal = RenewalLease(
            owner: "owner-1", pid: 4242, host: "host.example", startedAt: Date(timeIntervalSinceReferenceDate: 1.5),
            expiresAt: Date(timeIntervalSinceReferenceDate: 31.25))
        return record
    }

    @Test("every field round-trips, dates to the last bit", arguments: [full(), SessionRecord(), full().cleared()])
    func roundTrip(record: SessionRecord) throws {
        let data = try JSONEncoder().encode(record)
        #expect(try SessionRecord(json: data) == record)
        #expect(try SessionRecord(json: data) == JSONDecoder().decode(SessionRecord.self, from: data))
    }

    @Test(
        "what the record writes itself, both readers read back; it is the document Codable writes",
        arguments: [full(), SessionRecord(), full().cleared()])
    func written(record: SessionRecord) throws {
        let data = try record.json()
        #expect(try SessionRecord(json: data) == record)
        #expect(try JSONDecoder().decode(SessionRecord.self, from: data) == record)
        #expect(try JSONParser.parse(data) == JSONParser.parse(try JSONEncoder().encode(record)))
    }

    @Test("credentials without optional fields, and null members, read as absent")
    func minimal() throws {
        let data = Data(
            #"{"version":1,"generation":0,"credentials":{"version":1,"access_token":"a","token_type":"Bearer","received_at":0,"refresh_token":null},"profile":null}"#
                .utf8)
        let record = try SessionRecord(json: data)
        #expect(
            record.credentials?.refreshToken == nil && record.credentials?.expiresAt == nil && record.profile == nil)
    }

    @Test(
        "a member of the wrong type or a newer version is an error naming the member, never a value",
        arguments: [
            (#"{"version":"1","generation":0}"#, "record.version"),
            (#"{"version":1,"generation":-1}"#, "record.generation"),
            (
                #"{"version":1,"generation":0,"credentials":{"version":9,"access_token":"SECRET"}}"#,
                "credentials.version"
            ),
            (
                #"{"version":1,"generation":0,"credentials":{"version":1,"access_token":7,"token_type":"B","received_at":0}}"#,
                "record.credentials"
            ),
            (
                #"{"version":1,"generation":0,"renewal":{"owner":"o","pid":99999999999,"host":"h","startedAt":0,"expiresAt":0}}"#,
                "record.renewal.pid"
            ),
        ])
    func refused(document: String, path: String) {
        do {
            _ = try SessionRecord(json: Data(document.utf8))
            Issue.record("accepted \(document)")
        } catch {
            #expect("\(error)".contains(path), "\(error)")
            #expect(!"\(error)".contains("SECRET"))
        }
    }
}
