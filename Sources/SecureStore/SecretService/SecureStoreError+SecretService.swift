extension SecureStoreError {
    /// What to do when the keyring cannot be used.
    static let keyringAdvice =
        "unlock your keyring (for example by logging in to the desktop session) or use the file store "
        + "(sessionctl: --store file)"

    /// Maps a failed Secret Service call to a store error whose message says what failed and what to do.
    ///
    /// Everything that can pass without a change to the data (no D-Bus session, no Secret Service, a locked
    /// collection, a timeout) is ``Code/unavailable``: it never reads as "no item".
    init(_ failure: SecretServiceFailure, while action: String) {
        let message: String
        let code: Code
        switch failure.kind {
        case .libraryMissing:
            code = .unavailable
            message = "\(action) failed: \(failure); use the file store instead"
        case .notReachable:
            code = .unavailable
            message =
                "\(action) failed: the Secret Service is not reachable (\(failure)); make sure a D-Bus session and "
                + "a keyring daemon run, then \(Self.keyringAdvice)"
        case .locked:
            code = .unavailable
            message = "\(action) failed: the keyring is locked; \(Self.keyringAdvice)"
        case .noDefaultCollection:
            code = .unavailable
            message =
                "\(action) failed: the keyring has no default collection; create one (for example with Seahorse) "
                + "or use the file store (sessionctl: --store file)"
        case .timedOut:
            code = .unavailable
            message = "\(action) failed: \(failure); \(Self.keyringAdvice)"
        case .other:
            code = .ioFailure
            message = "\(action) failed: the Secret Service reported an error (\(failure)); try again"
        }
        self.init(code: code, message: message, underlyingError: failure)
    }
}
