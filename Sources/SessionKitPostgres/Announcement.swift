import Foundation
import SecureStore

/// The payloads of `NOTIFY sessionkit_items`, written by the store's statements and read by its change feed.
///
/// - `<service>:<digest>:<writer>:<generation>:<key id>:<sealed value, base64>`: an item written by the store
///   object `writer`, with its new row generation and its value as sealed in the row. Listeners open it with the
///   store's keys and hand it on, so that a cache takes it without a read.
/// - `<service>:<digest>:<writer>:<generation>`: the same when the sealed value does not fit in a payload
///   (PostgreSQL's limit is 8,000 bytes).
/// - `<service>:<digest>:<writer>` (a delete) and `<service>:<digest>` (a sweep): the item changed; read it.
/// - `<service>:*`: every item of the service changed.
///
/// Anyone who may connect to the database may `NOTIFY` on the channel: a value that fails authentication with
/// the store's keys (for this service and this digest) is dropped, and the change is announced without it.
struct Announcement {
    /// The largest payload PostgreSQL takes, less room for the generation.
    static let payloadLimit = 7_950

    /// The text before and after the generation (`generation::text` in SQL) of a written item's payload.
    let head: String
    let tail: String

    /// The payload for an item written by `writer`, with its sealed value when it fits.
    init(service: String, digest: Data, writer: String, keyID: String, sealed: Data) {
        head = "\(service):\(Hex.string(digest)):\(writer):"
        let value = ":\(keyID):\(sealed.base64EncodedString())"
        tail = head.utf8.count + value.utf8.count <= Self.payloadLimit ? value : ""
    }

    /// Reads a payload of `service` (see the type's documentation), or returns `nil` for another service's.
    /// `open` opens a sealed value with its key id and the digest, or returns `nil` when it fails; it is not
    /// called for the store's own writes (`writerID`), whose writer holds what it wrote. `ownGeneration` is the
    /// generation of an item the store wrote itself, for ``CommitWatch``; `nil` for anything else.
    ///
    /// Works on the payload's UTF-8 bytes: every instance reads every announcement, and walking a few kilobytes
    /// of base64 as `Character`s was most of a listener's cost in the renewal storm of `Benchmarks/server.sh`.
    static func change(
        _ payload: String, service: String, writerID: String, open: (Data, String, Data) -> Data?
    ) -> (change: SecureStoreChange, ownGeneration: UInt64?)? {
        let bytes = Array(payload.utf8)
        let prefix = Array(service.utf8) + [colon]
        guard bytes.starts(with: prefix) else { return nil }
        let rest = bytes[prefix.count...]
        if rest.elementsEqual("*".utf8) { return (SecureStoreChange(keyDigest: nil), nil) }
        let parts = rest.split(separator: colon, maxSplits: 3, omittingEmptySubsequences: false)
        // A service whose name has this one as a prefix, such as "app:x" for "app", fails the digest check.
        guard let digest = parts.first, digest.count == 64, let digestBytes = Hex.bytes(digest) else { return nil }
        let digestText = String(decoding: digest, as: UTF8.self).lowercased()
        let own = parts.count >= 2 && parts[1].elementsEqual(writerID.utf8)
        let generation = parts.count >= 3 ? UInt64(String(decoding: parts[2], as: UTF8.self)) : nil
        var item: VersionedItem?
        // The key id may hold colons; the base64 value after the last one does not.
        if !own, parts.count == 4, let separator = parts[3].lastIndex(of: colon), let generation,
            let sealed = Data(base64Encoded: Data(parts[3][(separator + 1)...])),
            let opened = open(sealed, String(decoding: parts[3][..<separator], as: UTF8.self), Data(digestBytes))
        {
            item = VersionedItem(data: opened, version: generation)
        }
        return (SecureStoreChange(keyDigest: digestText, isOwnWrite: own, item: item), own ? generation : nil)
    }

    private static let colon = UInt8(ascii: ":")
}
