import Crypto
import Foundation
import Testing

@testable import SessionKitPostgres

/// The associated data that binds a sealed value to its row: its layout is part of the stored format, so rows
/// written by any earlier version keep opening.
@Suite("RowSealer's associated data")
struct RowSealerTests {
    @Test("purpose, a zero byte, the service's length (4 bytes, big-endian) and bytes, then the key digest")
    func layout() throws {
        let key = SymmetricKey(size: .bits256)
        let sealer = RowSealer(keys: try PostgresSessionStore.Keys(current: ("k1", key)), service: "svc")
        let digest = RowSealer.digest(ofKey: "alice")
        for (purpose, name) in [
            (RowSealer.Purpose.itemValue, "sessionkit.item.value.v1"), (.itemKey, "sessionkit.item.key.v1"),
            (.journalValue, "sessionkit.journal.value.v1"),
        ] {
            let sealed = try sealer.seal(Data("value".utf8), purpose: purpose, keyDigest: digest)
            let aad = Data(name.utf8) + [0, 0, 0, 0, 3] + Data("svc".utf8) + digest
            let opened = try AES.GCM.open(AES.GCM.SealedBox(combined: sealed), using: key, authenticating: aad)
            #expect(opened == Data("value".utf8), "\(name)")
            #expect(
                try sealer.open(sealed, keyID: "k1", purpose: purpose, keyDigest: digest, what: "v")
                    == Data("value".utf8))
            // Another purpose, service or digest does not open it.
            let other = purpose == .itemKey ? RowSealer.Purpose.itemValue : .itemKey
            #expect(throws: (any Error).self) {
                try sealer.open(sealed, keyID: "k1", purpose: other, keyDigest: digest, what: "v")
            }
            #expect(throws: (any Error).self) {
                try RowSealer(keys: try PostgresSessionStore.Keys(current: ("k1", key)), service: "svd")
                    .open(sealed, keyID: "k1", purpose: purpose, keyDigest: digest, what: "v")
            }
            #expect(throws: (any Error).self) {
                try sealer.open(
                    sealed, keyID: "k1", purpose: purpose, keyDigest: RowSealer.digest(ofKey: "bob"), what: "v")
            }
        }
    }
}
