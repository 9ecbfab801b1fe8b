import Foundation
import Testing

@testable import SessionKit

@Suite("Credentials and secrets")
struct CredentialsTests {
    private let sample = Credentials(
        accessToken: Secret("access-VALUE-1"),
        idToken: Secret("id-VALUE-2"),
        refreshToken: Secret("refresh-VALUE-3"),
        expiresAt: Date(timeIntervalSince1970: 1_700_003_600),
        scope: "openid profile offline_access",
        receivedAt: Date(timeIntervalSince1970: 1_700_000_000),
        additionalParameters: ["recovery_code": "rc-VALUE-4"]
    )

    @Test("no printing path shows a token")
    func redaction() {
        var dumped = ""
        dump(sample, to: &dumped)
        let outputs = [
            sample.description, sample.debugDescription, "\(sample)", String(reflecting: sample), dumped,
            "\(sample.accessToken)", String(reflecting: sample.refreshToken as Any),
        ]
        for output in outputs {
            for value in ["access-VALUE-1", "id-VALUE-2", "refresh-VALUE-3", "rc-VALUE-4"] {
                #expect(!output.contains(value), "a printing path revealed a token: \(value.prefix(7))")
            }
        }
        #expect(sample.description.contains("refresh_token: <redacted>"))
        #expect(sample.description.contains("other: [recovery_code]"))
    }

    @Test("encoding round-trips every field and carries the schema version")
    func roundTrip() throws {
        let data = try JSONEncoder().encode(sample)
        let object = try JSONValue(parsing: data)
        #expect(object["version"] == .int(Credentials.schemaVersion))
        #expect(object["refresh_token"] == .string("refresh-VALUE-3"))
        let decoded = try JSONDecoder().decode(Credentials.self, from: data)
        #expect(decoded == sample)
    }

    @Test("dates with sub-second parts round-trip exactly, many times over")
    func exactDates() throws {
        for _ in 0..<200 {
            let now = Date()
            var credentials = sample
            credentials.receivedAt = now
            credentials.expiresAt = now.addingTimeInterval(Double.random(in: 1...86_400))
            let decoded = try JSONDecoder().decode(Credentials.self, from: try JSONEncoder().encode(credentials))
            #expect(decoded == credentials)
        }
    }

    @Test("a newer schema version is refused with a clear reason")
    func newerSchemaRefused() throws {
        let future = #"{"version":99,"access_token":"a","token_type":"Bearer","received_at":0}"#
        #expect {
            _ = try JSONDecoder().decode(Credentials.self, from: Data(future.utf8))
        } throws: { error in
            "\(error)".contains("schema version 99 is not supported")
        }
    }

    @Test("validity honours minTTL and unknown expiry")
    func validity() {
        let now = Date(timeIntervalSince1970: 1_700_003_000)
        #expect(sample.isValid(minTTL: 0, now: now))
        #expect(sample.isValid(minTTL: 599, now: now))
        #expect(!sample.isValid(minTTL: 600, now: now))
        #expect(!sample.isValid(now: Date(timeIntervalSince1970: 1_700_003_600)))
        var unknown = sample
        unknown.expiresAt = nil
        #expect(unknown.isValid(minTTL: 1e9, now: now))
    }

    @Test("canRenew needs a non-empty refresh token")
    func canRenew() {
        var credentials = sample
        #expect(credentials.canRenew)
        credentials.refreshToken = Secret("")
        #expect(!credentials.canRenew)
        credentials.refreshToken = nil
        #expect(!credentials.canRenew)
    }

    @Test("scopes split the scope string")
    func scopes() {
        #expect(sample.scopes == ["openid", "profile", "offline_access"])
    }
}
