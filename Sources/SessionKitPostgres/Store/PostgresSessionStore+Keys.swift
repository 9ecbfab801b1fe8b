public import Crypto
public import SecureStore

extension PostgresSessionStore {
    /// The application's keys that seal the store's rows, for key rotation.
    ///
    /// Every row records the id of the key that sealed it. Reads open a row with whichever known key its id
    /// names; writes always seal with ``current``. To rotate, deploy the new key as `current` with the old one
    /// in `previous`; rows move to the new key as they are written. Drop an old key only once no row names it
    /// (`SELECT DISTINCT key_id FROM sessionkit_items`): a row whose key is unknown reads as
    /// ``SecureStoreError/Code/corrupted``.
    ///
    /// The ``description`` shows key ids only, never key material.
    public struct Keys: Sendable, CustomStringConvertible {
        /// The key every write seals with, and its id.
        public let current: (id: String, key: SymmetricKey)
        /// Older keys that rows may still be sealed with, by id.
        public let previous: [String: SymmetricKey]

        /// Creates a key set.
        ///
        /// - Parameters:
        ///   - current: The id (short, stable, not secret: for example `"2026-11"`) and the 256-bit key
        ///     that every write uses.
        ///   - previous: Older keys by id, read only.
        /// - Throws: ``SecureStoreError/Code/invalidArgument`` when a key is not 256 bits, an id is empty or starts
        ///   with `sessionkit-format-` (reserved for the row format), or `previous` reuses the current id.
        public init(current: (id: String, key: SymmetricKey), previous: [String: SymmetricKey] = [:])
            throws(SecureStoreError)
        {
            for (id, key) in [(current.id, current.key)] + previous.map({ ($0.key, $0.value) }) {
                guard !id.isEmpty else {
                    throw SecureStoreError(code: .invalidArgument, message: "a key id is empty; give every key an id")
                }
                guard !id.hasPrefix(RowFormat.marker) else {
                    throw SecureStoreError(
                        code: .invalidArgument,
                        message: "key id '\(id)' starts with '\(RowFormat.marker)', which marks a row's format; "
                            + "choose another id")
                }
                guard key.bitCount == 256 else {
                    throw SecureStoreError(
                        code: .invalidArgument,
                        message:
                            "key '\(id)' has \(key.bitCount) bits; use a 256-bit key (SymmetricKey(size: .bits256))"
                    )
                }
            }
            guard previous[current.id] == nil else {
                throw SecureStoreError(
                    code: .invalidArgument,
                    message: "key id '\(current.id)' is both current and previous; give each key its own id"
                )
            }
            self.current = current
            self.previous = previous
        }

        /// The key with `id`, current or previous.
        func key(withID id: String) -> SymmetricKey? {
            id == current.id ? current.key : previous[id]
        }

        /// The key ids, never the keys.
        public var description: String {
            "Keys(current: \(current.id), previous: \(previous.keys.sorted()))"
        }
    }
}
