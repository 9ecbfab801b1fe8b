import SessionKit

extension Credentials {
    /// Who signed in, for a page or a line: the ID token's email, else its name, else its subject.
    var displayName: String? {
        idTokenClaims.flatMap { $0.email ?? $0.name ?? $0.subject }
    }
}
