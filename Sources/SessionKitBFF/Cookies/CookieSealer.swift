import Crypto
import Foundation
import SessionKit
import SessionKitSupport

/// Seals cookie values with AES-GCM under a key every instance shares, so that the browser holds them but can
/// neither read nor change them, and a value made up by anyone else is refused before the store is asked.
///
/// Each value is bound to its cookie's name (the associated data): a sealed sign-in cannot be replayed as a
/// session cookie or under another tab's name.
struct CookieSealer: Sendable {
    private let key: SymmetricKey

    /// Derives the cookie key from `secret` (HKDF-SHA256), so the same secret may serve other purposes too.
    init(secret: SymmetricKey) {
        key = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: secret, info: Data("sessionkit-bff cookies v1".utf8), outputByteCount: 32)
    }

    /// `plaintext` sealed for the cookie `name`, as base64url text (a valid cookie value).
    func seal(_ plaintext: Data, name: String) -> String {
        // AES-GCM sealing with a fresh random nonce fails only on a wrong key size, which `init` rules out.
        let box = try? AES.GCM.seal(plaintext, using: key, authenticating: Data(name.utf8))
        return Base64URL.encode(box?.combined ?? Data())
    }

    /// The plaintext of a value sealed for the cookie `name`, or `nil` for anything else: another key, another
    /// name, a change of a single bit, or text that is not base64url.
    func open(_ value: String, name: String) -> Data? {
        guard value.utf8.count <= 4096, let combined = Base64URL.decode(Substring(value)),
            let box = try? AES.GCM.SealedBox(combined: combined)
        else { return nil }
        return try? AES.GCM.open(box, using: key, authenticating: Data(name.utf8))
    }
}
