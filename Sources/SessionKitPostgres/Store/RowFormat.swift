/// The format of a row's sealed columns, marked in its `key_id` column.
///
/// Format 1 (c034272, the only one so far) is ``RowSealer``'s: AES-GCM's combined box (nonce, ciphertext, tag) with the
/// purpose, the service and the key's digest as associated data. Its rows hold the key's id as it is, and this version
/// writes them so, which every earlier version reads. A row of format `n` may instead hold
/// `sessionkit-format-<n>:<key id>`: format 1 so marked is read like a plain one, and a newer format is reported as
/// ``SecureStore/SecureStoreError/Code/newerFormat`` and left as it is, where an unknown key id would be `corrupted`.
/// Key ids that start with the marker are refused (``PostgresSessionStore/Keys``).
struct RowFormat: Equatable {
    /// The newest format this version reads and the one it writes.
    static let current = 1
    /// What a marked `key_id` starts with; a decimal version and a colon follow, then the key's id.
    static let marker = "sessionkit-format-"

    /// The row's format.
    let version: Int
    /// The id of the key that sealed the row.
    let keyID: String

    /// The format a marked `key_id` column names, or `nil` for a plain key id (format 1) or a malformed marker.
    init?(keyIDColumn column: String) {
        guard column.hasPrefix(Self.marker) else { return nil }
        let rest = column.utf8.dropFirst(Self.marker.utf8.count)
        guard let colon = rest.firstIndex(of: UInt8(ascii: ":")),
            let version = Int(String(decoding: rest[..<colon], as: UTF8.self)), version >= 1
        else { return nil }
        self.version = version
        keyID = String(decoding: rest[rest.index(after: colon)...], as: UTF8.self)
    }
}
