#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

/// Base64url (RFC 4648 §5) without padding, as JWTs, PKCE, DPoP, session ids and sealed cookies use it.
package enum Base64URL {
    /// Decodes unpadded base64url text; `nil` for padding, the standard alphabet's `+` and `/`, or a bad length.
    ///
    /// Works on the UTF-8 bytes: Foundation's string searching and replacing go through `NSString` on Linux,
    /// which made decoding an ID token cost more than verifying its signature (see `idtoken-bench`).
    package static func decode(_ text: Substring) -> Data? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count + 2)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "="), UInt8(ascii: "+"), UInt8(ascii: "/"): return nil
            case UInt8(ascii: "-"): bytes.append(UInt8(ascii: "+"))
            case UInt8(ascii: "_"): bytes.append(UInt8(ascii: "/"))
            default: bytes.append(byte)
            }
        }
        switch bytes.count % 4 {
        case 0: break
        case 2: bytes.append(contentsOf: [UInt8(ascii: "="), UInt8(ascii: "=")])
        case 3: bytes.append(UInt8(ascii: "="))
        default: return nil
        }
        return Data(base64Encoded: Data(bytes))
    }

    /// Encodes `data` as unpadded base64url text.
    ///
    /// Inlinable, so that callers in other modules get it specialized for their kind of bytes.
    @inlinable
    package static func encode(_ data: some DataProtocol) -> String {
        let base64 = Data(data).base64EncodedData()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(base64.count)
        for byte in base64 {
            switch byte {
            case UInt8(ascii: "+"): bytes.append(UInt8(ascii: "-"))
            case UInt8(ascii: "/"): bytes.append(UInt8(ascii: "_"))
            case UInt8(ascii: "="): continue
            default: bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
