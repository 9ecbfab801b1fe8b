import Crypto

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Hex {
    /// The SHA-256 of `text`'s UTF-8 bytes as 64 lower-case hexadecimal characters: how a secret or a key is named
    /// where only its digest may be kept (store accounts, one-time markers, announcements).
    package static func sha256(_ text: String) -> String {
        string(SHA256.hash(data: Data(text.utf8)))
    }
}
