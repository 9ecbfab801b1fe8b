import Foundation
import SecureStore
import Testing

@testable import SessionKitBFF

/// The session index's entries over an in-memory store: they lapse with their sessions, are bounded per user, and
/// entries written before they had an end still count. No database needed.
@Suite("The session index: entries that end, bounded")
struct SessionIndexTests {
    static func index(maximum: Int = 4_096) -> (SessionIndex, MemoryStore) {
        let memory = MemoryStore(service: "tests.index.\(UUID().uuidString)")
        return (SessionIndex(store: SynchronousStoreAdapter(memory), lifetime: 600, maximumSessions: maximum), memory)
    }

    @Test("an entry past its session's end is passed over by a logout and dropped at the next write")
    func lapsed() async throws {
        let (index, memory) = Self.index()
        let now = Date()
        _ = try await index.add(account: "old", subject: "alice", sid: "s1", expiresAt: now.addingTimeInterval(-1))
        _ = try await index.add(account: "live", subject: "alice", sid: "s2", expiresAt: now.addingTimeInterval(60))
        #expect(try await index.accounts(subject: "alice", sid: nil) == ["live"])
        #expect(try await index.accounts(subject: "alice", sid: "s1").isEmpty, "the sid's only session has ended")
        let items = try memory.keys().filter { $0.hasPrefix("bff.sub.") }
        #expect(items.count == 1)
        let stored = try #require(try memory.data(forKey: items[0]))
        let entries = try JSONDecoder().decode([String: Int64].self, from: stored)
        #expect(Set(entries.keys) == ["live"], "the lapsed entry was dropped when the item was written again")
    }

    @Test("a user's item never holds more than the bound: the sessions that end soonest are pushed out")
    func bounded() async throws {
        let (index, _) = Self.index(maximum: 5)
        let now = Date()
        var pushedOut = Set<String>()
        for number in 0..<8 {
            pushedOut.formUnion(
                try await index.add(
                    account: "a\(number)", subject: "alice", sid: "sid-\(number)",
                    expiresAt: now.addingTimeInterval(Double(100 + number))))
        }
        #expect(pushedOut == ["a0", "a1", "a2"])
        #expect(try await index.accounts(subject: "alice", sid: nil) == ["a3", "a4", "a5", "a6", "a7"])
        try await index.remove(account: "a7", subject: "alice", sid: "sid-7")
        #expect(try await index.accounts(subject: "alice", sid: nil).count == 4)
        #expect(try await index.accounts(subject: "alice", sid: "sid-7").isEmpty)
    }

    @Test("an item written as a list of accounts (before entries had an end) still finds its sessions")
    func earlierFormat() async throws {
        let (index, memory) = Self.index()
        _ = try await index.add(account: "x", subject: "bob", sid: nil, expiresAt: Date().addingTimeInterval(60))
        let key = try #require(try memory.keys().first { $0.hasPrefix("bff.sub.") })
        try memory.setData(Data(#"["one","two"]"#.utf8), forKey: key)
        #expect(try await index.accounts(subject: "bob", sid: nil) == ["one", "two"])
        _ = try await index.add(account: "three", subject: "bob", sid: nil, expiresAt: Date().addingTimeInterval(60))
        #expect(try await index.accounts(subject: "bob", sid: nil) == ["one", "two", "three"])
    }
}
