import Crypto

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension DPoPKey {
    /// Where the private key is and how it signs: a software key, or (on Apple devices that have one) a key in the
    /// Secure Enclave, kept as the enclave's encrypted handle and opened for each signature.
    enum Signer: Sendable {
        case software(P256.Signing.PrivateKey)
        case secureEnclave(handle: Data, publicKey: P256.Signing.PublicKey)

        /// The prefix of a Secure Enclave handle's stored form; a software key is stored as its 32 bytes.
        static let enclavePrefix = Data("sessionkit.se1:".utf8)

        static func generate(secureEnclave: Bool) -> Signer {
            #if canImport(CryptoKit) && (os(iOS) || os(macOS) || os(visionOS) || os(watchOS))
                if secureEnclave, SecureEnclave.isAvailable,
                    let key = try? SecureEnclave.P256.Signing.PrivateKey()
                {
                    return .secureEnclave(handle: key.dataRepresentation, publicKey: key.publicKey)
                }
            #endif
            return .software(P256.Signing.PrivateKey())
        }

        init(stored: Data) throws {
            guard stored.starts(with: Self.enclavePrefix) else {
                self = .software(try P256.Signing.PrivateKey(rawRepresentation: stored))
                return
            }
            #if canImport(CryptoKit) && (os(iOS) || os(macOS) || os(visionOS) || os(watchOS))
                let handle = Data(stored.dropFirst(Self.enclavePrefix.count))
                let key = try SecureEnclave.P256.Signing.PrivateKey(dataRepresentation: handle)
                self = .secureEnclave(handle: handle, publicKey: key.publicKey)
            #else
                throw SessionKitError(
                    code: .invalidInput, message: "the stored DPoP key is a Secure Enclave key of an Apple device")
            #endif
        }

        var publicKey: P256.Signing.PublicKey {
            switch self {
            case .software(let key): key.publicKey
            case .secureEnclave(_, let publicKey): publicKey
            }
        }

        var isSecureEnclave: Bool {
            if case .secureEnclave = self { return true }
            return false
        }

        var storedRepresentation: Data {
            switch self {
            case .software(let key): key.rawRepresentation
            case .secureEnclave(let handle, _): Self.enclavePrefix + handle
            }
        }

        /// The ES256 signature of `data`: r and s, 32 bytes each, as JWS wants them.
        func signature(for data: Data) throws -> Data {
            switch self {
            case .software(let key):
                return try key.signature(for: data).rawRepresentation
            case .secureEnclave(let handle, _):
                #if canImport(CryptoKit) && (os(iOS) || os(macOS) || os(visionOS) || os(watchOS))
                    let key = try SecureEnclave.P256.Signing.PrivateKey(dataRepresentation: handle)
                    return try key.signature(for: data).rawRepresentation
                #else
                    _ = handle
                    throw SessionKitError(code: .invalidInput, message: "no Secure Enclave on this platform")
                #endif
            }
        }
    }
}
