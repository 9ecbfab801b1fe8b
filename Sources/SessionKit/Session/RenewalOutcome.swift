/// How one renewal that sent a refresh grant ended, for whoever keeps count (a server's metrics): renewed, or
/// the error the caller got. Reported once per renewal, not per caller sharing it.
package enum RenewalOutcome: Sendable {
    /// New credentials were stored (or another instance's, found when the grant was refused).
    case renewed
    /// The renewal failed with this error: `signInRequired` when the provider ended the session.
    case failed(SessionKitError)
}
