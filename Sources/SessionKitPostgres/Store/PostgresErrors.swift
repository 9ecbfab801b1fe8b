import NIOSSL
import PostgresNIO
import SecureStore

/// Maps PostgresNIO's and NIO's errors to ``SecureStoreError``.
///
/// The rule the rest of SessionKit relies on: anything that says "the database cannot answer right now"
/// (refused, lost or timed-out connections, a server shutting down or starting up, a lock or statement
/// timeout, too many connections) is ``SecureStoreError/Code/unavailable``, so callers keep the session and
/// try again; it is never read as an empty store. Messages name the SQLSTATE, never a query's parameters, and
/// the configuration's description that they may include has no password.
enum PostgresErrors {
    /// SQLSTATE classes and codes after which the same call may succeed later.
    private static let retryableStates: Set<String> = [
        "57P01",  // admin_shutdown
        "57P02",  // crash_shutdown
        "57P03",  // cannot_connect_now (starting up, shutting down, in recovery)
        "57014",  // query_canceled (statement_timeout)
        "55P03",  // lock_not_available (lock_timeout)
        "53300",  // too_many_connections
        "53400",  // configuration_limit_exceeded
        "40001",  // serialization_failure
        "40P01",  // deadlock_detected
    ]

    /// Whether `error` says the connection had been closed by this client: nothing was sent on it.
    static func closedByThisClient(_ error: any Error) -> Bool {
        if let transaction = error as? PostgresTransactionError {
            return transaction.beginError.map(closedByThisClient) ?? false
        }
        return (error as? PSQLError)?.code == .clientClosedConnection
    }

    /// A TLS failure that trying again cannot fix: the server offers no TLS though it is required, or its
    /// certificate is not trusted. Not retryable: the configuration or the server must change (or someone is in
    /// the middle).
    private static func tlsRefusal(_ error: any Error, while action: String) -> SecureStoreError? {
        if let error = error as? PSQLError, error.code == .sslUnsupported {
            return SecureStoreError(
                code: .permissionDenied,
                message: "\(action) failed: the server does not offer TLS, which the sslmode requires; enable ssl on "
                    + "the server, or use sslmode=prefer only on a network you trust",
                underlyingError: error)
        }
        let underlying = (error as? PSQLError)?.underlying ?? error
        if let mismatch = underlying as? NIOSSLExtraError, mismatch == .failedToValidateHostname {
            return SecureStoreError(
                code: .permissionDenied,
                message: "\(action) failed: the server's TLS certificate does not name the host in the database "
                    + "URL; connect by a name the certificate has, or use sslmode=verify-ca to skip the name check",
                underlyingError: error)
        }
        // A connection dropped during the handshake fails it too (`eofDuringHandshake`): that one is transient.
        if case NIOSSLError.handshakeFailed(let reason) = underlying,
            "\(reason)".contains("CERTIFICATE_VERIFY_FAILED")
        {
            return SecureStoreError(
                code: .permissionDenied,
                message: "\(action) failed: the server's TLS certificate was not accepted (\(reason)); pass the "
                    + "authority that signed it with sslrootcert=/path/ca.pem, and check that the host in the URL is "
                    + "the one its certificate names",
                underlyingError: error)
        }
        return nil
    }

    static func map(_ error: any Error, while action: String) -> SecureStoreError {
        if let error = error as? SecureStoreError { return error }
        if let unconfirmed = error as? CommitUnconfirmed {
            return SecureStoreError(
                code: .unavailable,
                message: "\(action): PostgreSQL answered, but the connection failed before the commit was confirmed, "
                    + "so the change may not have been saved; keep the session, read it again and try again",
                underlyingError: unconfirmed.underlying)
        }
        if let transaction = error as? PostgresTransactionError,
            let cause = transaction.closureError ?? transaction.beginError ?? transaction.commitError
        {
            return map(cause, while: action)
        }
        if error is CancellationError {
            return SecureStoreError(
                code: .unavailable, message: "\(action) was cancelled; keep the session and try again",
                underlyingError: error)
        }
        if let refusal = tlsRefusal(error, while: action) { return refusal }
        guard let error = error as? PSQLError else {
            // NIO's own errors: connection refused, connect timeout, reset by peer, channel closed.
            return SecureStoreError(
                code: .unavailable,
                message: "\(action) failed: the database could not be reached (\(type(of: error))); keep the "
                    + "session and try again once PostgreSQL is up",
                underlyingError: error
            )
        }
        switch error.code {
        case .server:
            let state = error.serverInfo?[.sqlState] ?? "unknown"
            if retryableStates.contains(state) || state.hasPrefix("08") {
                return SecureStoreError(
                    code: .unavailable,
                    message: "\(action) failed: PostgreSQL answered SQLSTATE \(state) (busy, restarting or a lock "
                        + "held too long); keep the session and try again",
                    underlyingError: error
                )
            }
            if state == "28P01" || state == "28000" || state.hasPrefix("42501") {
                return SecureStoreError(
                    code: .permissionDenied,
                    message: "\(action) failed: PostgreSQL refused the role (SQLSTATE \(state)); check the user, "
                        + "password and grants in the database URL",
                    underlyingError: error
                )
            }
            if state == "42P01" || state == "3D000" {
                return SecureStoreError(
                    code: .ioFailure,
                    message: "\(action) failed: the database or the store's tables do not exist (SQLSTATE \(state)); "
                        + "create the database and run PostgresSessionStore.migrate() or PostgresSessionStore.Migrations",
                    underlyingError: error
                )
            }
            return SecureStoreError(
                code: .ioFailure,
                message: "\(action) failed: PostgreSQL answered SQLSTATE \(state); see the server's log",
                underlyingError: error
            )
        case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed,
            .queryCancelled:
            return SecureStoreError(
                code: .unavailable,
                message: "\(action) failed: the connection to PostgreSQL failed or was lost (\(error.code)); keep the "
                    + "session and try again",
                underlyingError: error
            )
        case .unsupportedAuthMechanism, .authMechanismRequiresPassword, .saslError:
            return SecureStoreError(
                code: .permissionDenied,
                message: "\(action) failed: signing in to PostgreSQL failed (\(error.code)); check the user and "
                    + "password in the database URL",
                underlyingError: error
            )
        default:
            return SecureStoreError(
                code: .ioFailure,
                message: "\(action) failed: PostgresNIO reported \(error.code)",
                underlyingError: error
            )
        }
    }
}
