public import SessionKitSupport

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A decoded JSON Web Token: its header and claims, read **without** verifying the signature.
///
/// Decoding answers "what does this token say?", for example whether an access token has expired, in
/// the spirit of JWTDecode.swift. It proves nothing about who issued the token: ID tokens are verified
/// by the provider client before anything is stored.
///
/// ```swift
/// let jwt = try JWT(decoding: credentials.idToken!.unsafeRawValue)
/// jwt.subject                      // "auth0|5f7c8ec7c33c6c004bbafe82"
/// jwt.isExpired(leeway: 30)        // false
/// jwt["https://example.com/roles"].stringArray
/// ```
///
/// Registered claims are type-checked while decoding (`exp` must be a number, `aud` a string or an
/// array of strings, ...), so a token whose claims have the wrong types fails with a
/// ``JWTDecodingError`` that says which claim and why.
public struct JWT: Sendable, CustomStringConvertible {
    /// The decoded JOSE header.
    public let header: Header
    /// Every claim of the payload, by name.
    public let claims: [String: JSONValue]
    /// The raw signature bytes (empty for an unsecured JWT).
    public let signature: Data
    /// The bytes the signature covers: `base64url(header) + "." + base64url(payload)`.
    public let signingInput: Data

    /// Decodes a compact JWT.
    ///
    /// - Throws: ``JWTDecodingError`` naming the part that is malformed and why.
    public init(decoding token: String) throws(JWTDecodingError) {
        let trimmed = Self.trimmingWhitespace(token)
        guard !trimmed.isEmpty else {
            throw JWTDecodingError(code: .segments, part: .token, reason: "the token is empty")
        }
        // Split on the byte, not the `Character`: walking a token's grapheme clusters was half the cost of
        // decoding it (see `idtoken-bench`). A dot's byte is never part of another scalar's UTF-8.
        let segments = trimmed.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
            .map { Substring($0) }
        guard segments.count == 3 else {
            let hint = segments.count == 5 ? " (5 segments is an encrypted JWE, which SessionKit does not decode)" : ""
            throw JWTDecodingError(
                code: .segments, part: .token,
                reason: "expected 3 dot-separated segments (header.payload.signature), found \(segments.count)\(hint)"
            )
        }
        let headerObject = try Self.decodeObject(segments[0], part: .header)
        let claims = try Self.decodeObject(segments[1], part: .payload)
        guard let signature = Base64URL.decode(segments[2]) else {
            throw JWTDecodingError(
                code: .encoding, part: .signature, reason: "the segment is not unpadded base64url text")
        }
        self.header = try Header(headerObject)
        self.claims = claims
        self.signature = signature
        self.signingInput = Data(trimmed.utf8.prefix(segments[0].utf8.count + 1 + segments[1].utf8.count))
        try Self.checkRegisteredClaims(claims)
    }

    /// `token` without leading and trailing whitespace, with the standard library's `Character.isWhitespace`:
    /// Foundation's `trimmingCharacters(in:)` goes through `NSString` on Linux.
    private static func trimmingWhitespace(_ token: String) -> Substring {
        guard let first = token.firstIndex(where: { !$0.isWhitespace }),
            let last = token.lastIndex(where: { !$0.isWhitespace })
        else { return "" }
        return token[first...last]
    }

    /// The claim named `name`, for typed access to custom claims; check ``Claim/exists``.
    public subscript(name: String) -> Claim {
        Claim(name: name, value: claims[name])
    }

    /// Whether the token's `exp` is at or before `now`, allowing `leeway` seconds of clock skew.
    /// A token without `exp` never expires.
    public func isExpired(leeway: TimeInterval = 0, now: Date = Date()) -> Bool {
        guard let expiresAt else { return false }
        return expiresAt.addingTimeInterval(leeway) <= now
    }

    /// A summary safe to print: the algorithm, key id, issuer, subject and expiry, never the token.
    public var description: String {
        let exp = expiresAt.map { "\($0.timeIntervalSince1970)" } ?? "none"
        return "JWT(alg: \(header.algorithm), kid: \(header.keyID ?? "none"), iss: \(issuer ?? "none"), "
            + "sub: \(subject ?? "none"), exp: \(exp))"
    }

    private static func decodeObject(_ segment: Substring, part: JWTDecodingError.Part) throws(JWTDecodingError)
        -> [String: JSONValue]
    {
        guard !segment.isEmpty else {
            throw JWTDecodingError(code: .encoding, part: part, reason: "the segment is empty")
        }
        guard let data = Base64URL.decode(segment) else {
            throw JWTDecodingError(code: .encoding, part: part, reason: "the segment is not unpadded base64url text")
        }
        let value: JSONValue
        do {
            value = try JSONValue(parsing: data)
        } catch {
            throw JWTDecodingError(code: .json, part: part, reason: "the decoded segment is not valid JSON")
        }
        guard case .object(let object) = value else {
            throw JWTDecodingError(
                code: .json, part: part, reason: "the decoded segment is a JSON \(value.typeName), not an object")
        }
        return object
    }
}
