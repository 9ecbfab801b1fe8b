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

    /// Decodes credentials written by this or an earlier version of SessionKit.
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
        self.init(
            accessToken: try container.decode(Secret.self, forKey: .accessToken),
            tokenType: try container.decode(String.self, forKey: .tokenType),
            idToken: try container.decodeIfPresent(Secret.self, forKey: .idToken),
            refreshToken: try container.decodeIfPresent(Secret.self, forKey: .refreshToken),
            expiresAt: try container.decodeIfPresent(Double.self, forKey: .expiresAt)
                .map(Date.init(timeIntervalSinceReferenceDate:)),
            scope: try container.decodeIfPresent(String.self, forKey: .scope),
            issuedTokenType: try container.decodeIfPresent(String.self, forKey: .issuedTokenType),
            receivedAt: Date(timeIntervalSinceReferenceDate: try container.decode(Double.self, forKey: .receivedAt)),
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
