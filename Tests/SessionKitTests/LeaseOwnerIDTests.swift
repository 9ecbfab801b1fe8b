import Foundation
import SecureStore
import Testing

@testable import SessionKit

/// The names managers give themselves in renewal leases.
@Suite("Lease owner IDs")
struct LeaseOwnerIDTests {
    @Test("every manager's name differs, also when made at once on many threads; one process shares a random prefix")
    func distinct() async throws {
        let names = await withTaskGroup(of: [String].self) { group in
            for _ in 0..<8 {
                group.addTask { (0..<1_000).map { _ in LeaseOwnerID.next() } }
            }
            return await group.reduce(into: [String]()) { $0 += $1 }
        }
        #expect(Set(names).count == 8_000)
        let prefixes = Set(names.map { String($0[..<$0.lastIndex(of: "-")!]) })
        #expect(prefixes.count == 1)
        // The prefix is a random UUID, not a fixed or guessable string.
        let prefix = try #require(prefixes.first)
        #expect(UUID(uuidString: prefix) != nil)
        let provider = ProviderClient(
            configuration: try ProviderConfiguration(issuer: URL(string: "https://owner.invalid/")!, clientID: "c"))
        let managers = (0..<3).map { _ in SessionManager(provider: provider, store: MemoryStore(service: "owners")) }
        var owners = Set<String>()
        for manager in managers { owners.insert(await manager.ownerID) }
        #expect(owners.count == 3)
    }
}
