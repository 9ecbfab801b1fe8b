public import Foundation
public import SessionKit
public import SessionKitServer

/// The signed-in user's session, as the middleware hands it to an app's own routes.
///
/// Having one means only that the request carried a session cookie this back end sealed, within its lifetime: ask for ``credentials(minTTL:)``
/// to learn whether the session is still there (it throws ``SessionKit/SessionKitError/Code/signInRequired``
/// when not).
public struct BFFSession: Sendable, CustomStringConvertible {
    /// The session's id (the cookie's value; its `description` shows only its first characters).
    public let id: SessionID
    /// The directory that holds it.
    public let sessions: SessionDirectory
    /// When the session ends whatever happens (its start plus the configured absolute lifetime).
    public let expiresAt: Date?

    /// Creates a handle on the session `id` in `sessions`.
    public init(id: SessionID, sessions: SessionDirectory, expiresAt: Date? = nil) {
        self.id = id
        self.sessions = sessions
        self.expiresAt = expiresAt
    }

    /// Credentials valid for at least `minTTL` seconds, renewed (once across instances) when needed.
    public func credentials(minTTL: TimeInterval = 30) async throws(SessionKitError) -> Credentials {
        try await sessions.credentials(for: id, minTTL: minTTL)
    }

    /// The signed-in user's ID token claims (`sub`, `name`, `email`, ...), or `nil` when the session has none.
    public func idTokenClaims() async throws(SessionKitError) -> JWT? {
        try await credentials(minTTL: 0).idTokenClaims
    }

    /// The session id, shortened.
    public var description: String { "BFFSession(\(id))" }
}
