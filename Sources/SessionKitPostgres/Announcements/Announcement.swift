import Foundation
import SecureStore
import SessionKitSupport

/// The payloads of `NOTIFY sessionkit_items`, written by the store's statements and read by its change feed.
///
/// - `<service>:<digest>:<writer>:<generation>:<key id>:<seal, base64>`: a conditional write by the store object
///   `writer` that moved the row to `generation`. The seal is AES-GCM under the store's key `key id` over the item's
///   value (or over nothing, when the value would not fit in a payload: PostgreSQL's limit is 8,000 bytes), and its
///   associated data binds the service, the digest, the writer and the generation: the whole announcement is
///   authenticated, and only such an announcement is believed as to what it says.
/// - `<service>:<digest>:<writer>` (an unconditional write or a delete by `writer`) and `<service>:<digest>` (a
///   sweep): the item may have changed; read it.
/// - `<service>:*`: every item of the service may have changed.
///
/// Anyone who may connect to the database may `LISTEN` and `NOTIFY` on the channel, with no right on any table. So a
/// payload that fails authentication, or that is not of the first form, only ever says "read this item": it never
/// carries a value, a generation or a writer that a listener acts on. A recorded announcement stays authentic, so
/// a replay is refused by its generation: a session manager takes an announced value only when it moves a version
/// it has read forward (`SessionManager.storeDidChange(to:)`), and a new row's first generation is taken from the
/// clock, so that a row deleted and written again never repeats an earlier row's generations.
struct Announcement {
    /// The largest payload PostgreSQL takes, with room to spare.
    static let payloadLimit = 7_950

    /// The whole payload.
    let payload: String

    /// The payload for a conditional write by `writer` that makes the row's generation `generation`, with `value`
    /// when it fits.
    init(
        service: String, digest: Data, writer: String, generation: UInt64, value: Data, sealer: RowSealer
    ) throws(SecureStoreError) {
        let head = "\(service):\(Hex.string(digest)):\(writer):\(generation):\(sealer.keys.current.id):"
        let context = Self.context(writer: writer.utf8, generation: generation)
        // A flag byte says whether the value follows: 1 with it, 0 without.
        let room = Self.payloadLimit - head.utf8.count
        let sealedSize = 12 + 1 + value.count + 16
        let carried = (sealedSize + 2) / 3 * 4 <= room
        let sealed = try sealer.seal(
            carried ? Data([1]) + value : Data([0]), purpose: .announcement, keyDigest: digest, context: context)
        payload = head + sealed.base64EncodedString()
    }

    /// What the seal binds beside the service and the digest: the writer and the generation.
    private static func context(writer: some Collection<UInt8>, generation: UInt64) -> Data {
        var data = Data()
        withUnsafeBytes(of: UInt32(writer.count).bigEndian) { data.append(contentsOf: $0) }
        data.append(contentsOf: writer)
        withUnsafeBytes(of: generation.bigEndian) { data.append(contentsOf: $0) }
        return data
    }

    /// Reads a payload of `service` (see the type's documentation), or returns `nil` for another service's.
    /// `ownGeneration` is the generation of an authenticated announcement of this store's own write (`writerID`),
    /// for ``CommitWatch``; `nil` for anything else.
    ///
    /// Works on the payload's UTF-8 bytes: every instance reads every announcement, and walking a few kilobytes
    /// of base64 as `Character`s was most of a listener's cost in the renewal storm of `Benchmarks/server.sh`.
    static func change(_ payload: String, service: String, writerID: String, sealer: RowSealer)
        -> (change: SecureStoreChange, ownGeneration: UInt64?)?
    {
        let bytes = Array(payload.utf8)
        let prefix = Array(service.utf8) + [colon]
        guard bytes.starts(with: prefix) else { return nil }
        let rest = bytes[prefix.count...]
        if rest.elementsEqual("*".utf8) { return (SecureStoreChange(keyDigest: nil), nil) }
        let parts = rest.split(separator: colon, maxSplits: 3, omittingEmptySubsequences: false)
        // A service whose name has this one as a prefix, such as "app:x" for "app", fails the digest check.
        guard let digest = parts.first, digest.count == 64, let digestBytes = Hex.bytes(digest) else { return nil }
        let digestText = String(decoding: digest, as: UTF8.self).lowercased()
        // `<service>:<digest>:<writer>`: an unconditional write or a delete. Marked as this store's own only to spare
        // it a read; a forged mark makes a listener skip a read, never take anything.
        guard parts.count == 4 else {
            let own = parts.count == 2 && parts[1].elementsEqual(writerID.utf8)
            return (SecureStoreChange(keyDigest: digestText, isOwnWrite: own), nil)
        }
        let unverified = (SecureStoreChange(keyDigest: digestText), UInt64?.none)
        // The key id may hold colons; the base64 seal after the last one does not.
        guard let generation = UInt64(String(decoding: parts[2], as: UTF8.self)),
            let separator = parts[3].lastIndex(of: colon),
            let sealed = Data(base64Encoded: Data(parts[3][(separator + 1)...])),
            let opened = try? sealer.open(
                sealed, keyID: String(decoding: parts[3][..<separator], as: UTF8.self), purpose: .announcement,
                keyDigest: Data(digestBytes),
                context: context(writer: parts[1], generation: generation),
                what: "an announced item"),
            let flag = opened.first, flag <= 1
        else { return unverified }
        if parts[1].elementsEqual(writerID.utf8) {
            return (SecureStoreChange(keyDigest: digestText, isOwnWrite: true), generation)
        }
        let item = flag == 1 ? VersionedItem(data: Data(opened.dropFirst()), version: generation) : nil
        return (SecureStoreChange(keyDigest: digestText, item: item), nil)
    }

    private static let colon = UInt8(ascii: ":")
}
