#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Where a session stands, as ``SessionManager/stateUpdates()`` reports it.
public enum SessionState: Sendable, Equatable {
    /// No session is stored: never signed in, or signed out.
    case signedOut
    /// Signed in; the access token is valid until the date (`nil` when the provider gave no expiry).
    case active(until: Date?)
    /// A renewal is under way.
    case renewing
    /// A renewal just succeeded; the new access token is valid until the date.
    case didRenew(until: Date?)
    /// The session ended (refresh token revoked or invalid, or no refresh token); the user must sign in.
    case needsSignIn(reason: String)
    /// The store cannot be read right now. The session is not lost; try again later.
    case storeUnavailable(reason: String)
}
