public import SecureStore

extension SessionKitError {
    /// A store failure as SessionKit reports it, in one place for the library and its apps: damage or
    /// another key is ``Code/storeCorrupted``; a store written by a newer version is
    /// ``Code/writtenByNewerVersion``; a store that cannot be used as configured is
    /// ``Code/invalidConfiguration``; anything else (a locked keyring or keychain, a held lock, an I/O
    /// error) is the retryable ``Code/storeUnavailable``. None of them ever reads as "signed out".
    public init(storeError error: SecureStoreError) {
        switch error.code {
        case .corrupted, .keyMismatch:
            self.init(
                code: .storeCorrupted,
                message: "the session store is damaged or was written with another key (\(error.message)); "
                    + "sign out or sign in again to replace it",
                underlyingError: error
            )
        case .newerFormat:
            self.init(
                code: .writtenByNewerVersion,
                message: "the session store was written by a newer version (\(error.message)); it is kept as it is: "
                    + "upgrade to read it",
                underlyingError: error
            )
        case .invalidArgument:
            self.init(
                code: .invalidConfiguration,
                message: "the session store cannot be used as configured (\(error.message))",
                underlyingError: error
            )
        default:
            self.init(
                code: .storeUnavailable,
                message:
                    "the session store cannot be used right now (\(error.message)); the session is kept, try again",
                underlyingError: error
            )
        }
    }
}
