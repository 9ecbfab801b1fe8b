import Foundation
import SessionKitServer

/// What the sealed session cookie says: which session, when it began, and when the browser was last seen.
///
/// The server enforces the configured absolute lifetime and idle timeout from these two dates, which only
/// this back end can write (the cookie is sealed), so checking them costs no store round trip; the cookie is
/// written again, with a new ``seenAt``, at most once a minute (``needsRefresh(at:)``).
struct SessionCookie: Sendable, Equatable {
    let id: SessionID
    let createdAt: Date
    var seenAt: Date
    let lifetime: TimeInterval
    let idleTimeout: TimeInterval

    init(id: SessionID, createdAt: Date, seenAt: Date, lifetime: TimeInterval, idleTimeout: TimeInterval) {
        self.id = id
        self.createdAt = createdAt
        self.seenAt = seenAt
        self.lifetime = lifetime
        self.idleTimeout = idleTimeout
    }

    /// The newest version of the plaintext this back end reads: `2 <id> <created> <seen>` (seconds since 1970).
    /// Version 1 (f0f4c05) has no version word: `<id> <created> <seen>`. See docs/stored-formats.md.
    static let version = 2

    /// The version this back end writes: still 1, which the previous release reads too, so that a rolling upgrade
    /// signs nobody out (an instance of that release reads a version-2 cookie as no session). The next release
    /// writes ``version``, which this one already reads.
    static let writtenVersion = 1

    /// Reads a plaintext of version 1 or 2; `nil` for anything else, including a newer version
    /// (``newerVersion(plaintext:)`` tells those apart).
    init?(plaintext: Data, lifetime: TimeInterval, idleTimeout: TimeInterval) {
        // Split on the byte: every forwarded request opens its cookie, and a split by `Character` walks
        // grapheme clusters.
        var parts = String(decoding: plaintext, as: UTF8.self).utf8.split(separator: UInt8(ascii: " "))
            .map { Substring($0) }
        if parts.count == 4, parts[0] == "\(Self.version)" { parts.removeFirst() }
        guard parts.count == 3, let id = try? SessionID(validating: String(parts[0])),
            let created = Int64(parts[1]), let seen = Int64(parts[2])
        else { return nil }
        self.init(
            id: id, createdAt: Date(timeIntervalSince1970: TimeInterval(created)),
            seenAt: Date(timeIntervalSince1970: TimeInterval(seen)), lifetime: lifetime, idleTimeout: idleTimeout)
    }

    /// The version of a plaintext a newer back end wrote (its first word a number above ``version``), or `nil`.
    /// Version 1's first word is a session id, never a number.
    static func newerVersion(plaintext: Data) -> Int? {
        let first = plaintext.prefix { $0 != UInt8(ascii: " ") }
        guard first.count <= 9, first.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            let version = Int(String(decoding: first, as: UTF8.self)), version > Self.version
        else { return nil }
        return version
    }

    var plaintext: Data {
        let created = Int64(createdAt.timeIntervalSince1970)
        let seen = Int64(seenAt.timeIntervalSince1970)
        let fields = "\(id.rawValue) \(created) \(seen)"
        return Data((Self.writtenVersion == 1 ? fields : "\(Self.writtenVersion) \(fields)").utf8)
    }

    /// When the session ends whatever happens: its start plus the absolute lifetime.
    var expiresAt: Date { createdAt.addingTimeInterval(lifetime) }

    /// Why the session has ended at `now`, or `nil` while it lasts.
    func ended(at now: Date) -> String? {
        if now >= expiresAt { return "it reached its absolute lifetime" }
        if now.timeIntervalSince(seenAt) >= idleTimeout { return "it was idle for longer than the idle timeout" }
        return nil
    }

    /// Whether the cookie should be written again to record that the browser was seen at `now`: once a
    /// minute at most (or a quarter of the idle timeout, when that is shorter).
    func needsRefresh(at now: Date) -> Bool {
        now.timeIntervalSince(seenAt) >= min(60, idleTimeout / 4)
    }
}
