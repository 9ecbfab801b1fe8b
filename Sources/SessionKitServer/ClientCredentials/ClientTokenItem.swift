import SessionKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The shared store's item for one client-credentials token: the token (when one was obtained) and the lease of
/// the instance asking for the next one (when one is). JSON, sealed by the store like every item.
struct ClientTokenItem: Codable, Sendable {
    var credentials: Credentials?
    var leaseOwner: String?
    var leaseUntil: Date?

    /// Thrown by a transform that leaves the item as it is (nothing is written).
    struct Unchanged: Error {}

    /// Whether an instance other than `owner` holds a lease that has not lapsed at `now`.
    func isLeased(elsewhereThan owner: String, at now: Date) -> Bool {
        guard let leaseOwner, let leaseUntil else { return false }
        return leaseOwner != owner && leaseUntil > now
    }

    /// The item without `owner`'s lease.
    func withoutLease(of owner: String) -> ClientTokenItem {
        guard leaseOwner == owner else { return self }
        return ClientTokenItem(credentials: credentials)
    }

    /// The item in `data`; an empty one when there is none or it cannot be read (it is then written over).
    static func decoded(_ data: Data?) -> ClientTokenItem {
        guard let data, let item = try? JSONDecoder().decode(ClientTokenItem.self, from: data) else {
            return ClientTokenItem()
        }
        return item
    }

    func encoded() -> Data {
        // Credentials and dates always encode.
        (try? JSONEncoder().encode(self)) ?? Data()
    }
}
