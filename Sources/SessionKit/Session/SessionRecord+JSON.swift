import SessionKitSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Reading a stored record with `JSONParser` instead of `JSONDecoder`, and writing it with `JSONTextWriter`
/// instead of `JSONEncoder`.
///
/// Every `sessionctl token` and every app launch reads the record; `JSONDecoder` reaches the record's types
/// through dynamic casts whose first use scans the binary's protocol conformances (see `Benchmarks/cli.sh`), which
/// costs more than the rest of the read. Every renewal writes it, on a server once per session per renewal.
/// The form read and written here is the one `Codable` writes (the tests check that each field round-trips,
/// through this pair and through `JSONDecoder`): dates as seconds since 2001-01-01, tokens as strings.
extension SessionRecord {
    /// Why a stored record cannot be read: the path of the member at fault and what is wrong with it.
    struct FormatError: Error, CustomStringConvertible {
        let path: String
        let reason: String
        var description: String { "\(path): \(reason)" }
    }

    /// A record, or credentials in it, of a version newer than this SessionKit writes: a newer SessionKit wrote it.
    struct NewerVersion: Error, CustomStringConvertible {
        let path: String
        let version: Int
        var description: String { "\(path) is version \(version); this SessionKit reads up to \(schemaVersion)" }
    }

    /// Reads a record from the JSON that its `Codable` conformance writes.
    init(json data: Data) throws {
        let value = try JSONParser.parse(data)
        let object = try Self.object(value, at: "record")
        let version = try Self.required(object, "version", at: "record").intValue
        guard let version else { throw FormatError(path: "record.version", reason: "not an integer") }
        // Checked before anything else is read: a newer record may be laid out otherwise.
        guard version <= Self.schemaVersion else { throw NewerVersion(path: "record.version", version: version) }
        let generation = try Self.required(object, "generation", at: "record").intValue
        guard let generation, generation >= 0 else {
            throw FormatError(path: "record.generation", reason: "not a non-negative integer")
        }
        self.init(version: version, generation: UInt64(generation))
        credentials = try object.member("credentials").map { try Credentials(recordJSON: $0) }
        profile = try object.member("profile").map {
            UserProfile(claims: try Self.object($0, at: "record.profile"))
        }
        if let apis = try object.member("api_credentials").map({ try Self.object($0, at: "record.api_credentials") }) {
            apiCredentials = try apis.mapValues { try Credentials(recordJSON: $0) }
        }
        renewal = try object.member("renewal").map { try RenewalLease(recordJSON: $0) }
    }

    /// The record as JSON, in the form its `Codable` conformance writes.
    func json() throws(JSONTextWriter.Failure) -> Data {
        guard let generation = Int(exactly: generation) else {
            throw JSONTextWriter.Failure(
                reason: "the record's generation \(generation) is past what JSON holds exactly")
        }
        var object: [String: JSONValue] = ["version": .int(version), "generation": .int(generation)]
        if let credentials { object["credentials"] = credentials.recordJSON }
        if let profile { object["profile"] = .object(profile.claims) }
        // A session without tokens for other APIs is written as before they existed.
        if !apiCredentials.isEmpty { object["api_credentials"] = .object(apiCredentials.mapValues(\.recordJSON)) }
        if let renewal { object["renewal"] = renewal.recordJSON }
        return Data(try JSONTextWriter.write(.object(object)))
    }

    static func object(_ value: JSONValue, at path: String) throws -> [String: JSONValue] {
        guard let object = value.objectValue else { throw FormatError(path: path, reason: "not an object") }
        return object
    }

    static func required(_ object: [String: JSONValue], _ name: String, at path: String) throws -> JSONValue {
        guard let value = object.member(name) else { throw FormatError(path: "\(path).\(name)", reason: "missing") }
        return value
    }

    static func string(_ value: JSONValue, at path: String) throws -> String {
        guard let text = value.stringValue else { throw FormatError(path: path, reason: "not a string") }
        return text
    }

    static func number(_ value: JSONValue, at path: String) throws -> Double {
        guard let number = value.doubleValue else { throw FormatError(path: path, reason: "not a number") }
        return number
    }
}

extension Credentials {
    /// The credentials in the form their `Codable` conformance writes, tokens included: for a secure store only.
    var recordJSON: JSONValue {
        var object: [String: JSONValue] = [
            "version": .int(Self.schemaVersion), "access_token": .string(accessToken.unsafeRawValue),
            "token_type": .string(tokenType), "received_at": .double(receivedAt.timeIntervalSinceReferenceDate),
        ]
        if let idToken { object["id_token"] = .string(idToken.unsafeRawValue) }
        if let refreshToken { object["refresh_token"] = .string(refreshToken.unsafeRawValue) }
        if let expiresAt { object["expires_at"] = .double(expiresAt.timeIntervalSinceReferenceDate) }
        if let scope { object["scope"] = .string(scope) }
        if let issuedTokenType { object["issued_token_type"] = .string(issuedTokenType) }
        if !additionalParameters.isEmpty { object["additional_parameters"] = .object(additionalParameters) }
        return .object(object)
    }

    /// Reads credentials in the form their `Codable` conformance writes, dates in either epoch (``StoredEpoch``).
    init(recordJSON value: JSONValue) throws {
        typealias R = SessionRecord
        let path = "record.credentials"
        let object = try R.object(value, at: path)
        let version = try R.required(object, "version", at: path).intValue
        if let version, version > Self.schemaVersion {
            throw R.NewerVersion(path: path + ".version", version: version)
        }
        guard let version, version >= 1 else {
            throw R.FormatError(
                path: path + ".version",
                reason: "not a credentials version this SessionKit reads (1...\(Self.schemaVersion)); upgrade "
                    + "SessionKit or sign in again")
        }
        func optionalString(_ name: String) throws -> String? {
            try object.member(name).map { try R.string($0, at: "\(path).\(name)") }
        }
        let receivedAt = try R.number(try R.required(object, "received_at", at: path), at: path + ".received_at")
        let epoch = StoredEpoch(receivedAt: receivedAt)
        func date(_ value: JSONValue, _ name: String) throws -> Date {
            epoch.date(try R.number(value, at: "\(path).\(name)"))
        }
        self.init(
            accessToken: Secret(try R.string(try R.required(object, "access_token", at: path), at: path)),
            tokenType: try R.string(try R.required(object, "token_type", at: path), at: path + ".token_type"),
            idToken: try optionalString("id_token").map(Secret.init),
            refreshToken: try optionalString("refresh_token").map(Secret.init),
            expiresAt: try object.member("expires_at").map { try date($0, "expires_at") },
            scope: try optionalString("scope"),
            issuedTokenType: try optionalString("issued_token_type"),
            receivedAt: epoch.date(receivedAt),
            additionalParameters: try object.member("additional_parameters").map {
                try R.object($0, at: path + ".additional_parameters")
            } ?? [:]
        )
    }
}

extension RenewalLease {
    /// The lease in the form its synthesized `Codable` conformance writes.
    var recordJSON: JSONValue {
        .object([
            "owner": .string(owner), "pid": .int(Int(pid)), "host": .string(host),
            "startedAt": .double(startedAt.timeIntervalSinceReferenceDate),
            "expiresAt": .double(expiresAt.timeIntervalSinceReferenceDate),
        ])
    }

    /// Reads a lease in the form its synthesized `Codable` conformance writes.
    init(recordJSON value: JSONValue) throws {
        typealias R = SessionRecord
        let path = "record.renewal"
        let object = try R.object(value, at: path)
        func field(_ name: String) throws -> JSONValue { try R.required(object, name, at: path) }
        guard let pid = try field("pid").intValue, let pid32 = Int32(exactly: pid) else {
            throw R.FormatError(path: path + ".pid", reason: "not a process id")
        }
        self.init(
            owner: try R.string(try field("owner"), at: path + ".owner"),
            pid: pid32,
            host: try R.string(try field("host"), at: path + ".host"),
            startedAt: Date(timeIntervalSinceReferenceDate: try R.number(try field("startedAt"), at: path)),
            expiresAt: Date(timeIntervalSinceReferenceDate: try R.number(try field("expiresAt"), at: path))
        )
    }
}
