import SecureStore
import SessionKit
import SessionKitSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// How a ``ClientCredentialsTokenSource`` gets a token once for every instance sharing a store: read the item;
/// use its token when it is fresh; wait while another instance holds the lease; else take the lease (an atomic
/// `update` that re-checks both), ask the provider, and write the token, which ends the lease.
struct SharedClientToken: Sendable {
    let provider: ProviderClient
    let audience: String
    let scope: String?
    let store: (any AsyncSecureStore)?
    let minimumLifetime: TimeInterval
    let leaseDuration: TimeInterval
    let clock: SessionClock
    /// This instance's name on its leases.
    let owner = PKCE.randomToken(bytes: 12)
    /// The item's key: the digest of what the token is for, so that clients, audiences and scopes never share one.
    var key: String {
        let issuer = provider.configuration.issuer.absoluteString
        let clientID = provider.configuration.clientID
        return "sessionkit.client-credentials." + Hex.sha256("\(issuer) \(clientID) \(audience) \(scope ?? "*")")
    }
    /// How long to wait between reads while another instance holds the lease.
    static let pollInterval = Duration.milliseconds(20)

    /// Whether `credentials` stay valid for at least the minimum lifetime (five minutes from their arrival when
    /// the provider did not say how long they last).
    func isFresh(_ credentials: Credentials) -> Bool {
        let expiry = credentials.expiresAt ?? credentials.receivedAt.addingTimeInterval(300)
        return expiry.timeIntervalSince(clock.now()) > minimumLifetime
    }

    /// A fresh token, from the store or asked for now.
    func obtain() async throws(SessionKitError) -> Credentials {
        guard let store else { return try await provider.clientCredentials(audience: audience, scope: scope) }
        while true {
            if Task.isCancelled {
                throw SessionKitError(code: .cancelled, message: "the client-credentials request was cancelled")
            }
            let item = ClientTokenItem.decoded(try await read(store))
            if let credentials = item.credentials, isFresh(credentials) { return credentials }
            if item.isLeased(elsewhereThan: owner, at: clock.now()) {
                try? await Task.sleep(for: Self.pollInterval)
                continue
            }
            guard try await takeLease(in: store) else { continue }
            let credentials: Credentials
            do {
                credentials = try await provider.clientCredentials(audience: audience, scope: scope)
            } catch {
                _ = try? await store.update(forKey: key) { data in
                    ClientTokenItem.decoded(data).withoutLease(of: owner).encoded()
                }
                throw error
            }
            // A token in hand is used even when the store cannot keep it: the next instance asks again.
            _ = try? await store.update(forKey: key) { _ in ClientTokenItem(credentials: credentials).encoded() }
            return credentials
        }
    }

    /// Deletes the stored token when it is `credentials`.
    func forget(_ credentials: Credentials) async {
        guard let store else { return }
        _ = try? await store.update(forKey: key) { data in
            let item = ClientTokenItem.decoded(data)
            guard item.credentials?.accessToken == credentials.accessToken else { throw ClientTokenItem.Unchanged() }
            return ClientTokenItem(leaseOwner: item.leaseOwner, leaseUntil: item.leaseUntil).encoded()
        }
    }

    private func read(_ store: any AsyncSecureStore) async throws(SessionKitError) -> Data? {
        do {
            return try await store.data(forKey: key)
        } catch {
            throw Self.storeFailure(error)
        }
    }

    /// Takes the lease unless, by the time the item is locked, it holds a fresh token or another live lease.
    private func takeLease(in store: any AsyncSecureStore) async throws(SessionKitError) -> Bool {
        let now = clock.now()
        do {
            try await store.update(forKey: key) { data in
                var item = ClientTokenItem.decoded(data)
                if let credentials = item.credentials, isFresh(credentials) { throw ClientTokenItem.Unchanged() }
                if item.isLeased(elsewhereThan: owner, at: now) { throw ClientTokenItem.Unchanged() }
                item.leaseOwner = owner
                item.leaseUntil = now.addingTimeInterval(leaseDuration)
                return item.encoded()
            }
            return true
        } catch is ClientTokenItem.Unchanged {
            return false
        } catch let error as SecureStoreError {
            throw Self.storeFailure(error)
        } catch {
            throw SessionKitError(
                code: .storeUnavailable, message: "the shared token's lease could not be taken; try again",
                underlyingError: error)
        }
    }

    private static func storeFailure(_ error: SecureStoreError) -> SessionKitError {
        SessionKitError(
            code: .storeUnavailable,
            message: "the store that shares the client-credentials token cannot be used right now (\(error.code)); "
                + "try again",
            underlyingError: error)
    }
}
