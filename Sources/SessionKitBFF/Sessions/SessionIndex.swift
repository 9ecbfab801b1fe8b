import Crypto
import Foundation
import SecureStore
import SessionKit
import SessionKitSupport

/// Which sessions belong to which provider session (`sid`) and user (`sub`), kept in the shared store so that
/// a back-channel logout received by any instance finds every session to end; the logout tokens already used,
/// so that a replayed one changes nothing on any instance (``spend(jwtID:until:)``); and the sign-ins already
/// finished (``spend(signInState:until:)``).
///
/// Each entry is one store item under the SHA-256 of what it indexes (`bff.sid.<hex>`, `bff.sub.<hex>`), holding
/// the store accounts of the sessions (``SessionKitServer/SessionID/account``: digests, never the ids), each with
/// when it ends at the latest (its absolute lifetime), as a JSON object `{"<account>": <Unix seconds>}`. Entries
/// are written when a session is created and removed when it ends; one past its end is passed over by a logout
/// and dropped at the next write of its item, and an item never holds more than ``maximumSessions``: beyond that
/// the sessions that end soonest are ended to make room. So an item stays as small as the user's live sessions,
/// however many sign-ins were never followed by a logout.
struct SessionIndex: Sendable {
    let store: any AsyncSecureStore
    /// How long an entry written before entries had an end (a list of accounts) is kept: the session lifetime.
    let lifetime: TimeInterval
    /// The most sessions one user, or one provider session, is indexed with.
    var maximumSessions = 4_096

    /// Records that the session stored under `account` belongs to `subject` and the provider session `sid`, and
    /// ends at `expiresAt` at the latest.
    ///
    /// - Returns: The accounts of sessions pushed out of a full entry (the ones that end soonest): end them.
    func add(account: String, subject: String?, sid: String?, expiresAt: Date) async throws(SecureStoreError)
        -> Set<String>
    {
        var pushedOut = Set<String>()
        let now = Date()
        for key in Self.keys(subject: subject, sid: sid) {
            try await change(key, now: now) { entries in
                entries[account] = Int64(expiresAt.timeIntervalSince1970)
                guard entries.count > maximumSessions else { return }
                let soonest = entries.sorted { ($0.value, $0.key) < ($1.value, $1.key) }
                for (other, _) in soonest.prefix(entries.count - maximumSessions) where other != account {
                    entries[other] = nil
                    pushedOut.insert(other)
                }
            }
        }
        return pushedOut
    }

    /// Forgets the session stored under `account` (it ended here).
    func remove(account: String, subject: String?, sid: String?) async throws(SecureStoreError) {
        try await remove(accounts: [account], subject: subject, sid: sid)
    }

    /// The sessions a back-channel logout ends (OpenID Connect Back-Channel Logout 1.0 §2.4): those of `sid` when
    /// the token names one, else every session of `subject`; sessions past their end are passed over.
    func accounts(subject: String?, sid: String?) async throws(SecureStoreError) -> Set<String> {
        let key = sid.map { Self.key("sid", $0) } ?? subject.map { Self.key("sub", $0) }
        guard let key, let data = try await store.data(forKey: key) else { return [] }
        let now = Int64(Date().timeIntervalSince1970)
        return Set(entries(data, now: Date()).filter { $0.value > now }.keys)
    }

    /// Forgets `accounts` under `sid` and `subject` (they ended); entries left empty are deleted.
    func remove(accounts: Set<String>, subject: String?, sid: String?) async throws(SecureStoreError) {
        guard !accounts.isEmpty else { return }
        for key in Self.keys(subject: subject, sid: sid) {
            try await change(key, now: Date()) { entries in
                for account in accounts { entries[account] = nil }
            }
        }
    }

    /// Whether the logout token `jti` was used already.
    func isSpent(jwtID: String) async throws(SecureStoreError) -> Bool {
        try await store.data(forKey: Self.jtiKey(jwtID)) != nil
    }

    /// Records the logout token `jti` as used until `expiresAt`; `false` when it was already used (a replay).
    func spend(jwtID: String, until expiresAt: Date) async throws(SecureStoreError) -> Bool {
        try await spend(Self.jtiKey(jwtID), until: expiresAt)
    }

    /// Records the sign-in started with `state` as finished (its callback came) until `expiresAt`, when its
    /// sign-in cookie expires; `false` when it was already (a replayed callback, on this instance or another).
    func spend(signInState state: String, until expiresAt: Date) async throws(SecureStoreError) -> Bool {
        try await spend("bff.signin-state." + Self.hex(state), until: expiresAt)
    }

    /// Writes `key` unless it exists: `false` when it did.
    private func spend(_ key: String, until expiresAt: Date) async throws(SecureStoreError) -> Bool {
        try await write(key) { existing in
            existing == nil ? Data(String(Int64(expiresAt.timeIntervalSince1970)).utf8) : nil
        }
    }

    /// Edits the entries under `key`, dropping those past their end first; writes only when something changed.
    private func change(_ key: String, now: Date, _ edit: (inout [String: Int64]) -> Void)
        async throws(SecureStoreError)
    {
        // `nil` from `write`'s closure leaves the item untouched; empty data deletes it.
        try await write(key) { data in
            let before = data.map { entries($0, now: now) } ?? [:]
            let current = Int64(now.timeIntervalSince1970)
            var after = before.filter { $0.value > current }
            edit(&after)
            guard after != before || (data != nil && after.isEmpty) else { return nil }
            return after.isEmpty ? Data() : (try? JSONEncoder().encode(after)) ?? Data()
        }
    }

    /// The entries an item holds: `{"<account>": <end>}`, or a list of accounts as written before entries had an
    /// end (each then ends ``lifetime`` from `now`); nothing for anything else.
    private func entries(_ data: Data, now: Date) -> [String: Int64] {
        if let entries = try? JSONDecoder().decode([String: Int64].self, from: data) { return entries }
        guard let accounts = try? JSONDecoder().decode([String].self, from: data) else { return [:] }
        let end = Int64(now.addingTimeInterval(lifetime).timeIntervalSince1970)
        return Dictionary(accounts.map { ($0, end) }, uniquingKeysWith: max)
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
        [sid.map { key("sid", $0) }, subject.map { key("sub", $0) }].compactMap { $0 }
    }

    private static func key(_ kind: String, _ value: String) -> String { "bff.\(kind)." + hex(value) }

    private static func jtiKey(_ jwtID: String) -> String { "bff.logout-jti." + hex(jwtID) }

    private static func hex(_ text: String) -> String {
        Hex.sha256(text)
    }
}

/// Thrown inside a store update to leave the item as it was.
private struct Unchanged: Error {}
