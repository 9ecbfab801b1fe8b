import SecureStore
import SessionKit
import SessionKitServer

/// Whether this instance can serve sessions now: its store answers and its provider answers. For a readiness
/// endpoint (Kubernetes' `readinessProbe`, a load balancer's health check), which takes an instance out of
/// rotation while either is down instead of letting it answer 503s. Messages say what failed and hold no
/// secret.
public struct Readiness: Sendable, Encodable {
    /// One dependency's state.
    public struct Check: Sendable, Encodable {
        /// Whether it answered.
        public var ok: Bool
        /// What went wrong, when it did not.
        public var error: String?
    }

    /// The session store: one read of an item that does not exist.
    public var database: Check
    /// The provider: its discovery document, fetched now.
    public var provider: Check

    /// Whether both answered.
    public var isReady: Bool { database.ok && provider.ok }
}

extension BackendForFrontend {
    /// Checks the store and the provider at once, each within its own time limit (the store's call deadline,
    /// the provider's request timeout).
    public func readiness() async -> Readiness {
        async let database = check { () async throws(SecureStoreError) in
            _ = try await sessions.store.data(forKey: "sessionkit.readiness-probe")
        }
        async let provider = check { () async throws(SessionKitError) in try await self.provider.checkReachable() }
        return await Readiness(database: database, provider: provider)
    }

    private func check<Failure: Error>(_ probe: () async throws(Failure) -> Void) async -> Readiness.Check {
        do {
            try await probe()
            return Readiness.Check(ok: true, error: nil)
        } catch {
            return Readiness.Check(ok: false, error: "\(error)")
        }
    }
}
