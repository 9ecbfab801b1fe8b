import Crypto
import Foundation
import SecureStore
import SessionKit

/// Sign-ins started and not yet finished, kept in the shared store under the SHA-256 of their `state`, so that
/// the callback can land on any instance. Each is taken at most once: a replayed callback finds nothing.
struct PendingSignIns: Sendable {
    /// One started sign-in: everything the code exchange needs, and where to go afterwards.
    struct Record: Codable, Sendable {
        var authorizationURL: URL
        var redirectURI: URL
        var state: String
        var nonce: String
        var codeVerifier: String
        var scope: String
        /// The SHA-256 (hex) of the binding cookie's value given to the browser that started the sign-in.
        var bindingDigest: String
        var returnTo: String
        var createdAt: Date

        var authorizationRequest: AuthorizationRequest {
            AuthorizationRequest(
                url: authorizationURL, redirectURI: redirectURI, state: state, nonce: nonce,
                codeVerifier: Secret(codeVerifier), scope: scope)
        }
    }

    let store: any SecureStore
    let lifetime: TimeInterval

    static func key(forState state: String) -> String { "bff.signin." + digest(state) }

    static func digest(_ text: String) -> String {
        SHA256.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    func save(_ record: Record) throws(SecureStoreError) {
        let data: Data
        do {
            data = try JSONEncoder().encode(record)
        } catch {
            throw SecureStoreError(code: .invalidArgument, message: "a sign-in record could not be encoded")
        }
        try store.setData(data, forKey: Self.key(forState: record.state))
    }

    /// Takes the sign-in started with `state` out of the store (atomically: a second take finds nothing), or
    /// `nil` when there is none or it is older than `lifetime`.
    func take(state: String, now: Date = Date()) throws -> Record? {
        var taken: Data?
        _ = try store.update(forKey: Self.key(forState: state)) { old in
            taken = old
            return nil
        }
        guard let taken, let record = try? JSONDecoder().decode(Record.self, from: taken) else { return nil }
        guard now.timeIntervalSince(record.createdAt) <= lifetime, record.state == state else { return nil }
        return record
    }
}
