import SessionKitSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Credentials: Codable {
    /// The version of the encoded form that this SessionKit writes. Decoding refuses newer versions.
    public static let schemaVersion = 1

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

    /// Decodes credentials written by this or an earlier version of SessionKit, dates in either epoch
    /// (``StoredEpoch``).
    ///
    /// - Throws: `DecodingError.dataCorrupted` when the data was written by a newer version.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let version = try container.decode(Int.self, forKey: .version)
        guard (1...Self.schemaVersion).contains(version) else {
            throw DecodingError.dataCorruptedError(
                forKey: .version,
                in: container,
                debugDescription: "credentials schema version \(version) is not supported by this SessionKit "
                    + "(it reads 1...\(Self.schemaVersion)); upgrade SessionKit or sign in again"
            )
        }
        let receivedAt = try container.decode(Double.self, forKey: .receivedAt)
        let epoch = StoredEpoch(receivedAt: receivedAt)
        self.init(
            accessToken: try container.decode(Secret.self, forKey: .accessToken),
            tokenType: try container.decode(String.self, forKey: .tokenType),
            idToken: try container.decodeIfPresent(Secret.self, forKey: .idToken),
            refreshToken: try container.decodeIfPresent(Secret.self, forKey: .refreshToken),
            expiresAt: try container.decodeIfPresent(Double.self, forKey: .expiresAt).map(epoch.date),
            scope: try container.decodeIfPresent(String.self, forKey: .scope),
            issuedTokenType: try container.decodeIfPresent(String.self, forKey: .issuedTokenType),
            receivedAt: epoch.date(receivedAt),
            additionalParameters: try container.decodeIfPresent([String: JSONValue].self, forKey: .additionalParameters)
                ?? [:]
        )
    }

    /// Encodes the credentials, tokens included, with ``schemaVersion``. Write the result only to a
    /// secure store.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Self.schemaVersion, forKey: .version)
        try container.encode(accessToken, forKey: .accessToken)
        try container.encode(tokenType, forKey: .tokenType)
        try container.encodeIfPresent(idToken, forKey: .idToken)
        try container.encodeIfPresent(refreshToken, forKey: .refreshToken)
        // Dates are seconds since 2001-01-01, Foundation's own form, so they round-trip exactly
        // (converting through the 1970 epoch can change the last bit).
        try container.encodeIfPresent(expiresAt?.timeIntervalSinceReferenceDate, forKey: .expiresAt)
        try container.encodeIfPresent(scope, forKey: .scope)
        try container.encodeIfPresent(issuedTokenType, forKey: .issuedTokenType)
        try container.encode(receivedAt.timeIntervalSinceReferenceDate, forKey: .receivedAt)
        if !additionalParameters.isEmpty {
            try container.encode(additionalParameters, forKey: .additionalParameters)
        }
    }
}

extension Credentials {
    /// The epoch of a stored credentials' dates.
    ///
    /// The first version-1 credentials (commit 7166bd7) stored `expires_at` and `received_at` as seconds since 1970;
    /// every later one as seconds since 2001, with no version bump. The two are told apart by `received_at`: a time
    /// at or past ``threshold`` is seconds since 1970 (from 2017 on; as seconds since 2001 it would be 2048), since
    /// no token was received before SessionKit existed, nor after 2048 by a version that writes 2001's epoch. Both
    /// dates of one credentials share its epoch. They are written back in 2001's (docs/stored-formats.md).
    struct StoredEpoch {
        /// The smallest `received_at` read as seconds since 1970.
        static let threshold: Double = 1_500_000_000

        /// Seconds to subtract from a stored date to get seconds since 2001.
        let offset: Double

        /// The epoch of credentials received at `receivedAt` as stored.
        init(receivedAt: Double) {
            offset = receivedAt >= Self.threshold ? Date.timeIntervalBetween1970AndReferenceDate : 0
        }

        /// The date a stored number of seconds means.
        func date(_ stored: Double) -> Date {
            Date(timeIntervalSinceReferenceDate: stored - offset)
        }
    }
}
