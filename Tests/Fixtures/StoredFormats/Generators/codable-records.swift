// Fixture generator: copies of the encoders of 7166bd7 (SessionRecord synthesized Codable, Credentials+Codable with
// seconds since 1970), 8c13e80 (seconds since 2001) and 365df0b (explicit record encode with api_credentials), run
// through Foundation's JSONEncoder() with its default settings, as SessionManager+Persistence did until 2d300be.
// Not part of any target. Run: swiftc codable-records.swift -o /tmp/records && /tmp/records <output folder>
import Foundation

struct Secret: Codable, Equatable {
    let value: String
    init(_ value: String) { self.value = value }
    init(from decoder: any Decoder) throws { value = try decoder.singleValueContainer().decode(String.self) }
    func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(value)
    }
}

enum JSONValue: Codable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])
    init(from decoder: any Decoder) throws { fatalError() }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

nonisolated(unsafe) var unixEpoch = true  // a one-shot script on one thread: set once per form before encoding

struct Credentials: Encodable {
    static let schemaVersion = 1
    var accessToken: Secret
    var tokenType: String
    var idToken: Secret?
    var refreshToken: Secret?
    var expiresAt: Date?
    var scope: String?
    var issuedTokenType: String?
    var receivedAt: Date
    var additionalParameters: [String: JSONValue]
    private enum CodingKeys: String, CodingKey {
        case version
        case accessToken = "access_token"
        case tokenType = "token_type"
        case idToken = "id_token"
        case refreshToken = "refresh_token"
        case expiresAt = "expires_at"
        case scope
        case issuedTokenType = "issued_token_type"
        case receivedAt = "received_at"
        case additionalParameters = "additional_parameters"
    }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Self.schemaVersion, forKey: .version)
        try container.encode(accessToken, forKey: .accessToken)
        try container.encode(tokenType, forKey: .tokenType)
        try container.encodeIfPresent(idToken, forKey: .idToken)
        try container.encodeIfPresent(refreshToken, forKey: .refreshToken)
        if unixEpoch {
            try container.encodeIfPresent(expiresAt?.timeIntervalSince1970, forKey: .expiresAt)
        } else {
            try container.encodeIfPresent(expiresAt?.timeIntervalSinceReferenceDate, forKey: .expiresAt)
        }
        try container.encodeIfPresent(scope, forKey: .scope)
        try container.encodeIfPresent(issuedTokenType, forKey: .issuedTokenType)
        if unixEpoch {
            try container.encode(receivedAt.timeIntervalSince1970, forKey: .receivedAt)
        } else {
            try container.encode(receivedAt.timeIntervalSinceReferenceDate, forKey: .receivedAt)
        }
        if !additionalParameters.isEmpty {
            try container.encode(additionalParameters, forKey: .additionalParameters)
        }
    }
}

struct UserProfile: Encodable {
    var claims: [String: JSONValue]
    func encode(to encoder: any Encoder) throws { try JSONValue.object(claims).encode(to: encoder) }
}

struct RenewalLease: Encodable {
    var owner: String
    var pid: Int32
    var host: String
    var startedAt: Date
    var expiresAt: Date
}

/// 7166bd7's record: synthesized Codable.
struct RecordV7166: Encodable {
    var version = 1
    var generation: UInt64 = 0
    var credentials: Credentials?
    var profile: UserProfile?
    var renewal: RenewalLease?
}

/// 365df0b's record: explicit encode, api_credentials only when not empty.
struct Record365: Encodable {
    var version = 1
    var generation: UInt64 = 0
    var credentials: Credentials?
    var profile: UserProfile?
    var apiCredentials: [String: Credentials] = [:]
    var renewal: RenewalLease?
    private enum CodingKeys: String, CodingKey {
        case version, generation, credentials, profile, renewal
        case apiCredentials = "api_credentials"
    }
    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(version, forKey: .version)
        try c.encode(generation, forKey: .generation)
        try c.encodeIfPresent(credentials, forKey: .credentials)
        try c.encodeIfPresent(profile, forKey: .profile)
        if !apiCredentials.isEmpty { try c.encode(apiCredentials, forKey: .apiCredentials) }
        try c.encodeIfPresent(renewal, forKey: .renewal)
    }
}

let credentials = Credentials(
    accessToken: Secret("fixture.access-token"), tokenType: "Bearer", idToken: Secret("fixture.id-token"),
    refreshToken: Secret("fixture.refresh-token"), expiresAt: Date(timeIntervalSinceReferenceDate: 816_987_600.5),
    scope: "openid profile offline_access", issuedTokenType: nil,
    receivedAt: Date(timeIntervalSinceReferenceDate: 816_984_000.25),
    additionalParameters: ["x_fixture": .string("kept")])
let profile = UserProfile(claims: [
    "sub": .string("auth0|fixture"), "name": .string("Ada Fixture"), "email": .string("ada@example.com"),
    "email_verified": .bool(true), "picture": .string("https://example.com/ada.png"),
])
let lease = RenewalLease(
    owner: "fixture-owner", pid: 4242, host: "fixture-host",
    startedAt: Date(timeIntervalSinceReferenceDate: 816_987_540),
    expiresAt: Date(timeIntervalSinceReferenceDate: 816_987_630))
let api = Credentials(
    accessToken: Secret("fixture.payments-access-token"), tokenType: "Bearer", idToken: nil, refreshToken: nil,
    expiresAt: Date(timeIntervalSinceReferenceDate: 816_987_000.75), scope: "pay read", issuedTokenType: nil,
    receivedAt: Date(timeIntervalSinceReferenceDate: 816_983_400.5), additionalParameters: [:])

let out = CommandLine.arguments[1]
func write(_ name: String, _ data: Data) throws {
    try data.write(to: URL(fileURLWithPath: out + "/" + name))
}
unixEpoch = true
try write(
    "record-7166bd7.json",
    JSONEncoder().encode(RecordV7166(generation: 3, credentials: credentials, profile: profile, renewal: lease)))
unixEpoch = false
try write(
    "record-8c13e80.json",
    JSONEncoder().encode(RecordV7166(generation: 3, credentials: credentials, profile: profile, renewal: lease)))
try write(
    "record-365df0b.json",
    JSONEncoder().encode(
        Record365(
            generation: 3, credentials: credentials, profile: profile,
            apiCredentials: ["https://payments.example/ pay read": api], renewal: lease)))
