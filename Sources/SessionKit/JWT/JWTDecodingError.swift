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

    /// A stable identifier for the kind of fault, in the shape of SessionKit's other errors.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        enum Storage: String, Hashable, Sendable {
            case segments, encoding, json, member
        }

        let storage: Storage

        /// The token is empty or does not have three dot-separated segments (five: an encrypted JWE).
        public static let segments = Code(storage: .segments)
        /// A segment is empty or not unpadded base64url text.
        public static let encoding = Code(storage: .encoding)
        /// The header or the payload does not decode to a JSON object.
        public static let json = Code(storage: .json)
        /// A header parameter or a registered claim is missing or of the wrong type.
        public static let member = Code(storage: .member)

        /// The code's name, such as `segments`.
        public var description: String { storage.rawValue }
    }

    /// The kind of fault.
    public let code: Code
    /// The part at fault.
    public let part: Part
    /// What is wrong with it.
    public let reason: String

    /// Creates an error of kind `code` for `part`.
    public init(code: Code, part: Part, reason: String) {
        self.code = code
        self.part = part
        self.reason = reason
    }

    /// For example: `malformed JWT payload: claim 'exp' is a string; it must be a number ...`.
    public var description: String {
        part == .token ? "malformed JWT: \(reason)" : "malformed JWT \(part.rawValue): \(reason)"
    }
}
