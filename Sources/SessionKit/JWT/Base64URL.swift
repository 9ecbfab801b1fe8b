import Foundation

/// Base64url (RFC 4648 §5) without padding, as JWTs use it.
enum Base64URL {
    /// Decodes unpadded base64url text; `nil` when it is not base64url.
    static func decode(_ text: Substring) -> Data? {
        var base64 = String(text)
        guard !base64.contains("="), !base64.contains("+"), !base64.contains("/") else { return nil }
        base64 = base64.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        switch base64.count % 4 {
        case 0: break
        case 2: base64 += "=="
        case 3: base64 += "="
        default: return nil
        }
        return Data(base64Encoded: base64)
    }

    /// Encodes `data` as unpadded base64url text.
    static func encode(_ data: some DataProtocol) -> String {
        Data(data).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
