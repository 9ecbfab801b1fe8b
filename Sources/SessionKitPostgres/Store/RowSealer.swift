import Crypto
import Foundation
import SecureStore

/// Seals and opens the store's values with AES-GCM, binding each to where it belongs.
///
/// The associated data names the purpose (item value, item key, journal entry), the service and the item's
/// key digest, so a sealed value moved to another row, another service or another column fails
/// authentication instead of being read as that row's value.
struct RowSealer: Sendable {
    /// What a sealed value is; part of the associated data.
    enum Purpose: String, Sendable {
        case itemValue = "sessionkit.item.value.v1"
        case itemKey = "sessionkit.item.key.v1"
        case journalValue = "sessionkit.journal.value.v1"
        /// A change announcement (``Announcement``): its associated data also binds the writer and the generation.
        case announcement = "sessionkit.announcement.v2"
    }

    let keys: PostgresSessionStore.Keys
    let service: String
    /// The associated data's start for each purpose (everything but the key digest), made once: every row read
    /// and every announcement is opened with it.
    private let prefixes: (itemValue: Data, itemKey: Data, journalValue: Data, announcement: Data)

    init(keys: PostgresSessionStore.Keys, service: String) {
        self.keys = keys
        self.service = service
        func prefix(_ purpose: Purpose) -> Data {
            var data = Data(purpose.rawValue.utf8)
            data.append(0)
            let serviceBytes = Data(service.utf8)
            withUnsafeBytes(of: UInt32(serviceBytes.count).bigEndian) { data.append(contentsOf: $0) }
            data.append(serviceBytes)
            return data
        }
        prefixes = (prefix(.itemValue), prefix(.itemKey), prefix(.journalValue), prefix(.announcement))
    }

    /// The SHA-256 of the key: how rows are found without storing the key itself in the clear.
    static func digest(ofKey key: String) -> Data {
        Data(SHA256.hash(data: Data(key.utf8)))
    }

    /// Seals `plaintext` with the current key; `context` is bound too (see ``Purpose/announcement``).
    func seal(_ plaintext: Data, purpose: Purpose, keyDigest: Data, context: Data = Data()) throws(SecureStoreError)
        -> Data
    {
        do {
            let box = try AES.GCM.seal(
                plaintext, using: keys.current.key, authenticating: aad(purpose, keyDigest, context))
            guard let combined = box.combined else {
                throw SecureStoreError(code: .ioFailure, message: "AES-GCM returned no sealed box; this is a bug")
            }
            return combined
        } catch let error as SecureStoreError {
            throw error
        } catch {
            throw SecureStoreError(code: .ioFailure, message: "sealing a value failed", underlyingError: error)
        }
    }

    /// Opens a value sealed with the key `keyID` (the row's `key_id`, which also says the row's format: see
    /// ``RowFormat``).
    ///
    /// - Throws: ``SecureStoreError/Code/newerFormat`` for a row of a newer format (left as it is);
    ///   ``SecureStoreError/Code/corrupted`` when the key is unknown or the value fails authentication. `what` names
    ///   the row in the message (never a key's plaintext that could be a secret); it is made only for a message.
    func open(
        _ sealed: Data,
        keyID: String,
        purpose: Purpose,
        keyDigest: Data,
        context: Data = Data(),
        what: @autoclosure () -> String
    ) throws(SecureStoreError) -> Data {
        // A plain key id (format 1, what this version writes) is found at once; the format marker is read only
        // when it is not.
        guard let key = keys.key(withID: keyID) ?? markedKey(keyID) else {
            if let format = RowFormat(keyIDColumn: keyID), format.version > RowFormat.current {
                throw SecureStoreError(
                    code: .newerFormat,
                    message: "\(what()) is in row format \(format.version), written by a newer SessionKit (this one "
                        + "reads up to \(RowFormat.current)); it is left as it is: upgrade to read it")
            }
            throw SecureStoreError(
                code: .corrupted,
                message: "\(what()) is sealed with key id '\(keyID)', which this store does not have (it has "
                    + "\(keys.description)); add that key to Keys.previous, or delete the row if the key is lost"
            )
        }
        do {
            let box = try AES.GCM.SealedBox(combined: sealed)
            return try AES.GCM.open(box, using: key, authenticating: aad(purpose, keyDigest, context))
        } catch {
            throw SecureStoreError(
                code: .corrupted,
                message: "\(what()) failed authentication with key id '\(keyID)': it was modified, moved from another "
                    + "row or sealed with a different key under the same id; delete the row (the user signs in again)",
                underlyingError: error
            )
        }
    }

    /// The key a `key_id` column marked with a format this version reads names (see ``RowFormat``).
    private func markedKey(_ column: String) -> SymmetricKey? {
        guard let format = RowFormat(keyIDColumn: column), format.version <= RowFormat.current else { return nil }
        return keys.key(withID: format.keyID)
    }

    private func aad(_ purpose: Purpose, _ keyDigest: Data, _ context: Data) -> Data {
        var data: Data
        switch purpose {
        case .itemValue: data = prefixes.itemValue
        case .itemKey: data = prefixes.itemKey
        case .journalValue: data = prefixes.journalValue
        case .announcement: data = prefixes.announcement
        }
        data.append(keyDigest)
        data.append(context)
        return data
    }
}
