import SessionKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension Terminal {
    /// Runs `body` with standard output pointing where standard error does, then puts it back.
    ///
    /// For a sign-in inside kubectl's credential plugin: kubectl reads the plugin's standard output as the
    /// ExecCredential, and a program the sign-in starts (a `$BROWSER` command inherits this process's streams) must not
    /// write into it; on standard error, kubectl's terminal, a person sees it. kubelogin does the same for its browser.
    static func withStandardOutputOnStandardError<T>(
        _ body: () async throws(SessionKitError) -> T
    ) async throws(SessionKitError) -> T {
        let saved = dup(STDOUT_FILENO)
        guard saved >= 0, dup2(STDERR_FILENO, STDOUT_FILENO) >= 0 else {
            if saved >= 0 { close(saved) }
            return try await body()
        }
        defer {
            dup2(saved, STDOUT_FILENO)
            close(saved)
        }
        return try await body()
    }
}
