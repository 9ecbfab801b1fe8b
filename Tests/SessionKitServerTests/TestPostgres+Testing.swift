import SessionKitPostgresTestSupport
import Testing

/// Why a suite that needs the test PostgreSQL is skipped, as the comments of Swift Testing's `.enabled(if:_:)`.
extension TestPostgres {
    static let skipNote = Comment(rawValue: skipReason)
    static let restartNote = Comment(rawValue: restartReason)
    static let tlsNote = Comment(rawValue: tlsReason)
}
