import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The names managers give themselves in renewal leases: a random prefix drawn once per process, then a counter.
///
/// Unique across processes (the prefix is a random UUID) and across the managers of one process (the counter),
/// without a random draw for each manager: a server makes a manager for every session it serves, and drawing a
/// UUID was three quarters of the CPU of making one (see `Benchmarks/server.sh`).
/// An owner name says nothing about the session and holds no secret.
enum LeaseOwnerID {
    private static let process = UUID().uuidString
    private static let counter = Atomic<UInt64>(0)

    /// A name no other manager, in this process or another, has had.
    static func next() -> String {
        "\(process)-\(counter.add(1, ordering: .relaxed).newValue)"
    }
}
