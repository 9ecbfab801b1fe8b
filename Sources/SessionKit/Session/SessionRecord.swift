#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Everything SessionKit stores for one account, written as one item so that it changes atomically.
package struct SessionRecord: Codable, Sendable, Equatable {
    /// The version of this record's encoded form.
    package static let schemaVersion = 1

    var version = Self.schemaVersion
    /// Grows by one with every write; a writer that read generation N and must not overwrite a newer
    /// record writes only if the record is still at N.
    package var generation: UInt64 = 0
    /// The session's credentials; `nil` when signed out.
    package var credentials: Credentials?
    var profile: UserProfile?
    /// Access tokens for other APIs, renewed from the session's one refresh token, by
    /// ``RenewalTarget/APIKey/recordKey``. They hold no refresh token and no ID token: those are the session's.
    var apiCredentials: [String: Credentials] = [:]
    /// A renewal under way, so other processes wait for it instead of spending the refresh token again.
    package var renewal: RenewalLease?
    /// The version a ``SecureStore/VersionedSecureStore`` gave the item this record was read from or written
    /// as, for a conditional write: kept by the coordinators of such stores, which alone read it; not stored.
    package var storeVersion: UInt64?

    private enum CodingKeys: String, CodingKey {
        case version, generation, credentials, profile, renewal
        case apiCredentials = "api_credentials"
    }

    /// A record with these fields; an empty one (no session) by default.
    package init(
        version: Int = Self.schemaVersion, generation: UInt64 = 0, credentials: Credentials? = nil,
        profile: UserProfile? = nil, apiCredentials: [String: Credentials] = [:], renewal: RenewalLease? = nil
    ) {
        self.version = version
        self.generation = generation
        self.credentials = credentials
        self.profile = profile
        self.apiCredentials = apiCredentials
        self.renewal = renewal
    }

    /// Reads a record as `Codable` writes it.
    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            version: try c.decode(Int.self, forKey: .version),
            generation: try c.decode(UInt64.self, forKey: .generation),
            credentials: try c.decodeIfPresent(Credentials.self, forKey: .credentials),
            profile: try c.decodeIfPresent(UserProfile.self, forKey: .profile),
            apiCredentials: try c.decodeIfPresent([String: Credentials].self, forKey: .apiCredentials) ?? [:],
            renewal: try c.decodeIfPresent(RenewalLease.self, forKey: .renewal)
        )
    }

    /// Writes the record; a session without tokens for other APIs is written as before they existed.
    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(version, forKey: .version)
        try c.encode(generation, forKey: .generation)
        try c.encodeIfPresent(credentials, forKey: .credentials)
        try c.encodeIfPresent(profile, forKey: .profile)
        if !apiCredentials.isEmpty { try c.encode(apiCredentials, forKey: .apiCredentials) }
        try c.encodeIfPresent(renewal, forKey: .renewal)
    }

    /// The record with no session: what logout and a revoked refresh token leave behind. The
    /// generation carries on, so writers that read an earlier one see the change.
    func cleared() -> SessionRecord {
        SessionRecord(generation: generation)
    }
}
