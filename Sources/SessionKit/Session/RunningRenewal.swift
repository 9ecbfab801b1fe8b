/// The renewal a ``SessionManager`` is running, which callers arriving meanwhile wait for.
///
/// A class around the task rather than the task itself: a `Mutex<Task<Credentials, any Error>?>` makes the
/// runtime check at start-up that `any Error` conforms to `Error`, and in a binary the size of `sessionctl`
/// that first check scans every protocol conformance in it (see `Benchmarks/cli.sh`).
final class RunningRenewal: Sendable {
    /// The renewal; its value is the renewed credentials.
    let task: Task<Credentials, any Error>
    /// What it renews: only callers asking for the same target take its value.
    let target: RenewalTarget
    /// Whether it started as a process's first read of the session, which renews only when the record read
    /// does not serve the call that started it.
    let isFirstRead: Bool

    init(target: RenewalTarget, isFirstRead: Bool = false, task: Task<Credentials, any Error>) {
        self.target = target
        self.isFirstRead = isFirstRead
        self.task = task
    }
}
