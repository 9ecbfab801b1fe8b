/// This version of SessionKit, as its command-line programs print it with `--version`.
public enum SessionKitVersion {
    /// The version, in semantic versioning; `-dev` until it is released (CHANGELOG.md says what changed since).
    public static let current = "0.2.0-dev"
}
