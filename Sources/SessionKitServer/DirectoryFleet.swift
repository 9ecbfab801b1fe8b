/// What the managers of one ``SessionDirectory`` share as members of a fleet of server instances: whether the
/// store's announcements reach them and how contended leases are (``ChangeListening``), and the metrics their
/// renewals are counted in. Their coordinators (``VersionedStoreCoordinator``, ``FleetUpdateCoordinator``) hold it.
final class DirectoryFleet: Sendable {
    /// Whether the directory's follower receives announcements now, and how contended leases are.
    let listening = ChangeListening()
    /// The directory's counters.
    let metrics: DirectoryMetrics

    /// A fleet counting in `metrics`, with nobody listening yet.
    init(metrics: DirectoryMetrics) {
        self.metrics = metrics
    }
}
