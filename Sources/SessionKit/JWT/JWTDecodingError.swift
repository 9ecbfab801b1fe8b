/// Why a string could not be decoded as a JWT: which part is wrong, and how.
///
/// The ``description`` names the part and the reason; it never contains the token.
public struct JWTDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The part of a compact JWT (`header.payload.signature`) at fault.
    public enum Part: String, Sendable, Equatable {
        /// The token as a whole (for example, the wrong number of segments).
        case token
        /// The first segment: the JOSE header.
        case header
        /// The second segment: the claims.
        case payload
        /// The third segment: the signature.
        case signature
    }

    /// The part at fault.
    public let part: Part
    /// What is wrong with it.
    public let reason: String

    /// Creates an error for `part`.
    public init(part: Part, reason: String) {
        self.part = part
        self.reason = reason
    }

    /// For example: `malformed JWT payload: claim 'exp' is a string; it must be a number ...`.
    public var description: String {
        part == .token ? "malformed JWT: \(reason)" : "malformed JWT \(part.rawValue): \(reason)"
    }
}
