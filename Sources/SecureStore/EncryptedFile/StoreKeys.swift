import Crypto

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The keys an ``EncryptedFileStore`` derives from the caller's 256-bit key with HKDF-SHA256.
///
/// The AES-GCM key and the key-check value come from separate HKDF `info` strings, so the key-check value
/// (stored in clear in each file's header) reveals nothing about the encryption key.
struct StoreKeys: Sendable {
    /// The AES-256-GCM key.
    let encryption: SymmetricKey
    /// 16 bytes that identify the key: the first bytes of an HMAC-SHA256 under a derived key.
    let check: Data

    private static let salt = Data(utf8Of: "SessionKit.SecureStore.EncryptedFileStore.v1")

    /// Derives the store keys from `key`, which must be 256 bits long.
    init(deriving key: SymmetricKey) throws(SecureStoreError) {
        guard key.bitCount == 256 else {
            throw SecureStoreError(
                code: .invalidArgument,
                message: "the encryption key has \(key.bitCount) bits; supply a 256-bit SymmetricKey"
            )
        }
        encryption = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: key,
            salt: Self.salt,
            info: Data(utf8Of: "aes-256-gcm"),
            outputByteCount: 32
        )
        let checkKey = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: key,
            salt: Self.salt,
            info: Data(utf8Of: "key-check"),
            outputByteCount: 32
        )
        let code = HMAC<SHA256>.authenticationCode(for: Data(utf8Of: "key-check-value"), using: checkKey)
        check = Data(code).prefix(EncryptedFileStore.Format.keyCheckCount)
    }
}
