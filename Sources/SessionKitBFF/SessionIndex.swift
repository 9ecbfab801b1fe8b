import Crypto
import Foundation
import SecureStore
import SessionKit

/// Which sessions belong to which provider session (`sid`) and user (`sub`), kept in the shared store so that
/// a back-channel logout received by any instance finds every session to end; and the logout tokens already
/// used, so that a replayed one changes nothing on any instance (``spend(jwtID:until:)``).
///
/// Each entry is one store item under the SHA-256 of what it indexes (`bff.sid.<hex>`, `bff.sub.<hex>`), holding
/// the store accounts of the sessions (``SessionKitServer/SessionID/account``: digests, never the ids). Entries
/// are written when a session is created and removed when it ends; one that outlives its sessions names
/// sessions that no longer exist, which a logout passes over without a write.
struct SessionIndex: Sendable {
    let store: any AsyncSecureStore

    /// Records that the session stored under `account` belongs to `subject` and the provider session `sid`.
    func add(account: String, subject: String?, sid: String?) async throws(SecureStoreError) {
        for key in Self.keys(subject: subject, sid: sid) {
            try await change(key) { accounts in accounts.insert(account) }
        }
    }

    /// Forgets the session stored under `account` (it ended here).
    func remove(account: String, subject: String?, sid: String?) async throws(SecureStoreError) {
        try await remove(accounts: [account], subject: subject, sid: sid)
    }

    /// Every session of `sid` and of `subject`.
    func accounts(subject: String?, sid: String?) async throws(SecureStoreError) -> Set<String> {
        var found = Set<String>()
        for key in Self.keys(subject: subject, sid: sid) {
            if let data = try await store.data(forKey: key),
                let accounts = try? JSONDecoder().decode(Set<String>.self, from: data)
            {
                found.formUnion(accounts)
            }
        }
        return found
    }

    /// Forgets `accounts` under `sid` and `subject` (they ended); entries left empty are deleted.
    func remove(accounts: Set<String>, subject: String?, sid: String?) async throws(SecureStoreError) {
        guard !accounts.isEmpty else { return }
        for key in Self.keys(subject: subject, sid: sid) {
            try await change(key) { $0.subtract(accounts) }
        }
    }

    /// Whether the logout token `jti` was used already.
    func isSpent(jwtID: String) async throws(SecureStoreError) -> Bool {
        try await store.data(forKey: Self.jtiKey(jwtID)) != nil
    }

    /// Records the logout token `jti` as used until `expiresAt`; `false` when it was already used (a replay).
    func spend(jwtID: String, until expiresAt: Date) async throws(SecureStoreError) -> Bool {
        let written = try await write(Self.jtiKey(jwtID)) { existing in
            existing == nil ? Data(String(Int64(expiresAt.timeIntervalSince1970)).utf8) : nil
        }
        return written
    }

    private func change(_ key: String, _ edit: (inout Set<String>) -> Void) async throws(SecureStoreError) {
        // `nil` from `write`'s closure leaves the item untouched; empty data deletes it.
        try await write(key) { data in
            let before = data.flatMap { try? JSONDecoder().decode(Set<String>.self, from: $0) } ?? []
            var after = before
            edit(&after)
            guard after != before || (data != nil && after.isEmpty) else { return nil }
            return after.isEmpty ? Data() : (try? JSONEncoder().encode(after)) ?? Data()
        }
    }

    /// Atomically replaces the item at `key` with what `next` returns for its current value: `nil` leaves it
    /// untouched (no write, no announcement), empty data deletes it. Returns whether it wrote.
    @discardableResult
    private func write(_ key: String, _ next: (Data?) -> Data?) async throws(SecureStoreError) -> Bool {
        var wrote = false
        do {
            _ = try await store.update(forKey: key) { data in
                guard let replacement = next(data) else { throw Unchanged() }
                wrote = true
                return replacement.isEmpty ? nil : replacement
            }
        } catch is Unchanged {
            return false
        } catch let error as SecureStoreError {
            throw error
        } catch {
            throw SecureStoreError(code: .unavailable, message: "the session index could not be written")
        }
        return wrote
    }

    private static func keys(subject: String?, sid: String?) -> [String] {
        [sid.map { "bff.sid." + hex($0) }, subject.map { "bff.sub." + hex($0) }].compactMap { $0 }
    }

    private static func jtiKey(_ jwtID: String) -> String { "bff.logout-jti." + hex(jwtID) }

    private static func hex(_ text: String) -> String {
        Hex.string(SHA256.hash(data: Data(text.utf8)))
    }
}

/// Thrown inside a store update to leave the item as it was.
private struct Unchanged: Error {}
