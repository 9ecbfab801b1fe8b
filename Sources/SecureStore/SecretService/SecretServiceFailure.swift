/// A failed libsecret call, as the C API reported it: the `GError` domain, code and message.
///
/// GLib error messages describe the failure (a D-Bus error, a locked collection), never an item's value.
struct SecretServiceFailure: Error, Sendable, CustomStringConvertible {
    /// What kind of failure, as far as the store's callers care.
    enum Kind: Sendable {
        /// libsecret or GLib is not installed or too old.
        case libraryMissing
        /// No D-Bus session bus, no Secret Service on it, or a D-Bus call failed.
        case notReachable
        /// The collection or item is locked.
        case locked
        /// The Secret Service has no default collection to store items in.
        case noDefaultCollection
        /// The call did not finish within the configured timeout.
        case timedOut
        /// Any other error the service reported.
        case other
    }

    let kind: Kind
    /// The `GError` domain (such as `secret-error-quark`), when the failure came from a `GError`.
    let domain: String?
    /// The `GError` code, when the failure came from a `GError`.
    let code: Int32?
    let message: String

    init(kind: Kind, message: String, domain: String? = nil, code: Int32? = nil) {
        self.kind = kind
        self.message = message
        self.domain = domain
        self.code = code
    }

    /// Classifies a `GError` by its domain and code.
    init(domain: String, code: Int32, message: String) {
        let kind: Kind
        switch (domain, code) {
        case ("secret-error-quark", 2): kind = .locked  // SECRET_ERROR_IS_LOCKED
        case ("g-io-error-quark", 24): kind = .timedOut  // G_IO_ERROR_TIMED_OUT
        case ("g-io-error-quark", 19): kind = .timedOut  // G_IO_ERROR_CANCELLED: only our timeout cancels
        case ("g-io-error-quark", _), ("g-dbus-error-quark", _): kind = .notReachable
        default: kind = .other
        }
        self.init(kind: kind, message: message, domain: domain, code: code)
    }

    /// A short reason, for a fallback notice: what is wrong with the keyring, without advice.
    var shortReason: String {
        switch kind {
        case .libraryMissing: "libsecret is not installed"
        case .notReachable: "the Secret Service is not reachable (\(self))"
        case .locked: "the keyring is locked"
        case .noDefaultCollection: "the keyring has no default collection"
        case .timedOut: message
        case .other: "the Secret Service reported an error (\(self))"
        }
    }

    var description: String {
        guard let domain, let code else { return message }
        return "\(message) (\(domain) \(code))"
    }
}
