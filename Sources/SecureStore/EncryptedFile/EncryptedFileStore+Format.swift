import Crypto

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension EncryptedFileStore {
    /// The on-disk format of a store file: a short header, then an AES-GCM sealed box.
    ///
    /// ```
    /// offset  size  field
    ///      0     4  magic "SKSF"
    ///      4     1  format version (1)
    ///      5    16  key-check value (see ``StoreKeys``)
    ///     21    12  AES-GCM nonce (random per write)
    ///     33     n  ciphertext of the ``ItemCodec`` payload
    ///   33+n    16  AES-GCM tag
    /// ```
    ///
    /// The additional authenticated data is the magic, the version and the service name (length-prefixed),
    /// so a file copied from another service fails to open. The key-check value is deliberately outside it:
    /// when the tag fails, a matching key-check value means the data was damaged (``SecureStoreError/Code/corrupted``)
    /// and a different one means another key (``SecureStoreError/Code/keyMismatch``); when the tag passes but
    /// the key-check value differs, the header was tampered with, which is also `corrupted`.
    enum Format {
        static let magic: [UInt8] = Array("SKSF".utf8)
        static let version: UInt8 = 1
        static let keyCheckCount = 16
        static let headerCount = 4 + 1 + keyCheckCount
        /// The smallest well-formed file: a header and a sealed box of an empty plaintext.
        static let minimumCount = headerCount + 12 + 16

        /// Encrypts `items` into the bytes of a store file for `service`.
        static func seal(_ items: [String: Data], service: String, keys: StoreKeys) throws(SecureStoreError) -> Data {
            let sealed: AES.GCM.SealedBox
            do {
                sealed = try AES.GCM.seal(
                    ItemCodec.encode(items),
                    using: keys.encryption,
                    authenticating: authenticatedData(service: service)
                )
            } catch {
                throw SecureStoreError(
                    code: .ioFailure,
                    message: "encrypting the items of service '\(service)' failed; try again",
                    underlyingError: error
                )
            }
            var file = Data(magic)
            file.append(version)
            file.append(keys.check)
            file.append(sealed.nonce.withUnsafeBytes { Data($0) })
            file.append(sealed.ciphertext)
            file.append(sealed.tag)
            return file
        }

        /// Decrypts and decodes the bytes of the store file at `path`.
        static func open(
            _ file: Data,
            service: String,
            keys: StoreKeys,
            path: String
        ) throws(SecureStoreError) -> [ItemCodec.Item] {
            let bytes = [UInt8](file)
            guard bytes.count >= minimumCount else {
                throw corrupted(path, "it is truncated (\(bytes.count) bytes, at least \(minimumCount) expected)")
            }
            guard Array(bytes[0..<4]) == magic else {
                throw corrupted(path, "it is not a SessionKit store file")
            }
            guard bytes[4] <= version else {
                throw SecureStoreError(
                    code: .newerFormat,
                    message: "the store file \(path) has format version \(bytes[4]), written by a newer version (this "
                        + "one reads \(version)); it is left as it is: upgrade to read it")
            }
            guard bytes[4] == version else {
                throw corrupted(path, "it has format version \(bytes[4]), which this version cannot read")
            }
            let keyCheckMatches = Data(bytes[5..<headerCount]) == keys.check
            let plaintext: Data
            do {
                let box = try AES.GCM.SealedBox(combined: bytes[headerCount...])
                let header = authenticatedData(service: service)
                plaintext = try AES.GCM.open(box, using: keys.encryption, authenticating: header)
            } catch {
                guard keyCheckMatches else {
                    throw SecureStoreError(
                        code: .keyMismatch,
                        message: "the store file '\(path)' was written with a different key; supply the key it "
                            + "was written with, or delete the file to start over (its items are lost)",
                        underlyingError: error
                    )
                }
                throw corrupted(path, "it failed authentication (modified, truncated or from another service)", error)
            }
            guard keyCheckMatches else {
                throw corrupted(path, "its key-check value was modified")
            }
            do {
                return try ItemCodec.decode(plaintext)
            } catch {
                throw corrupted(path, "its decrypted content is malformed", error)
            }
        }

        /// The additional authenticated data: magic, version, then the service name with its UTF-8 length.
        static func authenticatedData(service: String) -> Data {
            let name = Data(utf8Of: service)
            var data = Data(magic)
            data.append(version)
            let length = UInt32(truncatingIfNeeded: name.count)
            data.append(contentsOf: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: length >> $0) })
            data.append(name)
            return data
        }

        private static func corrupted(_ path: String, _ reason: String, _ error: (any Error)? = nil) -> SecureStoreError
        {
            SecureStoreError(
                code: .corrupted,
                message: "the store file '\(path)' is damaged: \(reason); restore it from a backup or delete it "
                    + "to start over (its items are lost)",
                underlyingError: error
            )
        }
    }
}
