/// A store that can delete, in one go, the items nobody has written for a while: sessions that ended or were
/// abandoned, on a server that keeps many users' sessions.
public protocol SecureStoreSweeping: Sendable {
    /// Deletes this service's items not written for `idle`, announcing each deletion like any other change,
    /// and returns how many went.
    ///
    /// - Throws: ``SecureStoreError/Code/invalidArgument`` for an `idle` so short that it would end sessions
    ///   in use; ``SecureStoreError/Code/unavailable`` when the store cannot be reached.
    @discardableResult
    func sweep(idleFor idle: Duration) async throws(SecureStoreError) -> Int
}
