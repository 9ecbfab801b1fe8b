public import SessionKitSupport

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// The user's profile: the OpenID Connect standard claims from userinfo or the ID token, plus every
/// other claim the provider sent.
///
/// ```swift
/// if let name = profile.name, let picture = profile.picture { show(name, picture) }
/// ```
public struct UserProfile: Sendable, Equatable, Codable {
    /// Every claim, by name, including those with typed accessors.
    public var claims: [String: JSONValue]

    /// Creates a profile from its claims.
    public init(claims: [String: JSONValue]) {
        self.claims = claims
    }

    /// Parses a userinfo answer.
    ///
    /// - Throws: ``SessionKitError/Code/invalidResponse`` unless it is a JSON object with a `sub`.
    public init(json: Data) throws(SessionKitError) {
        guard let object = (try? JSONValue(parsing: json))?.objectValue, object["sub"]?.stringValue != nil else {
            throw SessionKitError(
                code: .invalidResponse, message: "the userinfo answer is not a JSON object with a sub claim")
        }
        self.claims = object
    }

    /// The user's id at the provider (`sub`).
    public var subject: String { claims["sub"]?.stringValue ?? "" }
    /// The full name.
    public var name: String? { claims["name"]?.stringValue }
    /// The given name.
    public var givenName: String? { claims["given_name"]?.stringValue }
    /// The family name.
    public var familyName: String? { claims["family_name"]?.stringValue }
    /// The nickname.
    public var nickname: String? { claims["nickname"]?.stringValue }
    /// The email address.
    public var email: String? { claims["email"]?.stringValue }
    /// Whether the email address is verified.
    public var emailVerified: Bool? { claims["email_verified"]?.boolValue }
    /// The picture's URL.
    public var picture: URL? { claims["picture"]?.stringValue.flatMap(URL.init(string:)) }
    /// When the profile last changed.
    public var updatedAt: String? { claims["updated_at"]?.stringValue }

    /// Encodes the claims as one JSON object.
    public func encode(to encoder: any Encoder) throws {
        try JSONValue.object(claims).encode(to: encoder)
    }

    /// Decodes a JSON object of claims.
    public init(from decoder: any Decoder) throws {
        guard case .object(let claims) = try JSONValue(from: decoder) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "a profile is a JSON object"))
        }
        self.claims = claims
    }
}
