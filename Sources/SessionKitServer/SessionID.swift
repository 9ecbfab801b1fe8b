import Crypto
import Foundation
public import SessionKit
import SessionKitSupport

/// The random id of one server-side session: 256 bits from the system's secure generator, as 43 base64url
/// characters, fit for a cookie.
///
/// The id is a bearer credential (whoever holds it is signed in), so its `description` shows only its first
/// characters, and the store keeps sessions under its SHA-256, never under the id itself: someone who can
/// read the database cannot take a session over with what they read.
public struct SessionID: Sendable, Hashable, CustomStringConvertible {
    /// The id as sent in a cookie.
    public let rawValue: String

    /// A new random id.
    public init() {
        let bytes = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
        rawValue = Base64URL.encode(bytes)
    }

    /// Checks an id that came from outside (a cookie).
    ///
    /// - Throws: ``SessionKit/SessionKitError/Code/invalidInput`` unless it is 43 base64url characters.
    public init(validating text: String) throws(SessionKitError) {
        let allowed = text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                true
            default: false
            }
        }
        guard text.utf8.count == 43, allowed else {
            throw SessionKitError(
                code: .invalidInput,
                message: "the session id is malformed (a session id is 43 base64url characters); sign in again")
        }
        rawValue = text
    }

    /// The account name the store keeps this session under: the id's SHA-256, in hex.
    public var account: String {
        "sid-sha256:" + Hex.sha256(rawValue)
    }

    /// The first six characters only: enough to tell sessions apart in a log, too few to use.
    public var description: String { "SessionID(\(rawValue.prefix(6))…)" }
}
