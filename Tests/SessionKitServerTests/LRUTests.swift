import Foundation
import SecureStore
import SessionKit
import Testing

@testable import SessionKitServer

/// The directory's cache on its own: which manager goes when it is full, and that every way of finding a manager
/// (id, account, digest) agrees with what is cached. Managers here read nothing: none is ever used.
@Suite("SessionDirectory.LRU")
struct LRUTests {
    private let provider: ProviderClient
    private let store = MemoryStore(service: "tests.lru")

    init() throws {
        let issuer = try #require(URL(string: "https://lru.invalid/"))
        provider = ProviderClient(configuration: try ProviderConfiguration(issuer: issuer, clientID: "lru"))
    }

    private func manager(_ id: SessionID) -> SessionManager {
        SessionManager(provider: provider, store: store, account: id.account)
    }

    @Test("past its capacity the least recently used goes; a use makes an entry the newest")
    func leastRecentlyUsedGoes() {
        var lru = SessionDirectory.LRU()
        let ids = (0..<4).map { _ in SessionID() }
        for id in ids.prefix(3) { lru.insert(manager(id), for: id, capacity: 3) }
        #expect(lru.use(ids[0]) != nil)
        lru.insert(manager(ids[3]), for: ids[3], capacity: 3)
        #expect(lru.count == 3)
        #expect(lru.use(ids[1]) == nil, "the least recently used went")
        #expect([ids[0], ids[2], ids[3]].allSatisfy { lru.use($0) != nil })
    }

    @Test("10,000 inserts and uses at random agree with a plain list, and every index agrees with the entries")
    func agreesWithReference() {
        var lru = SessionDirectory.LRU()
        var reference: [SessionID] = []  // oldest first
        var managers: [SessionID: SessionManager] = [:]
        let pool = (0..<300).map { _ in SessionID() }
        var generator = SystemRandomNumberGenerator()
        let capacity = 64
        for step in 0..<10_000 {
            let id = pool.randomElement(using: &generator)!
            switch Int.random(in: 0..<10, using: &generator) {
            case 0..<6:
                let found = lru.use(id)
                #expect((found != nil) == reference.contains(id), "step \(step): use")
                if let found {
                    #expect(found === managers[id])
                    reference.removeAll { $0 == id }
                    reference.append(id)
                }
            case 6..<9:
                let manager = self.manager(id)
                managers[id] = manager
                lru.insert(manager, for: id, capacity: capacity)
                reference.removeAll { $0 == id }
                reference.append(id)
                if reference.count > capacity { reference.removeFirst(reference.count - capacity) }
            default:
                lru.remove(account: id.account)
                reference.removeAll { $0 == id }
            }
            #expect(lru.count == reference.count, "step \(step): count")
        }
        let cached = Set(reference)
        for id in pool {
            let manager = managers[id]
            let byAccount = lru.manager(account: id.account)
            let byDigest = manager.flatMap { lru.manager(digest: SecureStoreChange.digest(ofKey: $0.storeKey)) }
            #expect((byAccount != nil) == cached.contains(id))
            #expect((byDigest != nil) == cached.contains(id))
            if cached.contains(id) { #expect(byAccount === manager && byDigest === manager) }
        }
        let expected = reference.compactMap { managers[$0] }.map(ObjectIdentifier.init)
        #expect(Set(lru.managers.map(ObjectIdentifier.init)) == Set(expected) && expected.count == reference.count)
        // The order too: filling the cache with new entries drops the survivors oldest first. A cache left short
        // of its capacity by a late remove is topped up first (the newcomers are the newest), else the first
        // newcomer would drop nothing and every expectation below would be off by one.
        while reference.count < capacity {
            let newcomer = SessionID()
            lru.insert(manager(newcomer), for: newcomer, capacity: capacity)
            reference.append(newcomer)
        }
        #expect(lru.count == capacity)
        for (index, id) in reference.enumerated() {
            let newcomer = SessionID()
            lru.insert(manager(newcomer), for: newcomer, capacity: capacity)
            #expect(lru.manager(account: id.account) == nil, "the \(index)th oldest went \(index + 1)th")
            if index + 1 < reference.count {
                #expect(lru.manager(account: reference[index + 1].account) != nil)
            }
        }
    }

    @Test("inserting a session cached already replaces its manager and keeps one entry")
    func replaces() {
        var lru = SessionDirectory.LRU()
        let id = SessionID()
        let first = self.manager(id)
        let second = self.manager(id)
        lru.insert(first, for: id, capacity: 4)
        lru.insert(second, for: id, capacity: 4)
        #expect(lru.count == 1)
        #expect(lru.use(id) === second && lru.manager(account: id.account) === second)
        #expect(lru.manager(digest: SecureStoreChange.digest(ofKey: second.storeKey)) === second)
    }

    @Test("removing by store key drops exactly the matching entries, from every index")
    func removesWhere() {
        var lru = SessionDirectory.LRU()
        let ids = (0..<10).map { _ in SessionID() }
        for id in ids { lru.insert(manager(id), for: id, capacity: 100) }
        let gone = Set(ids.prefix(4).map(\.account))
        #expect(lru.remove { key in gone.contains { key.hasSuffix("|" + $0) } } == 4)
        #expect(lru.count == 6)
        for id in ids {
            #expect((lru.manager(account: id.account) == nil) == gone.contains(id.account))
        }
    }
}
