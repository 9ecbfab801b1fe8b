import Foundation

/// Where the tests' PostgreSQL is, for every suite that needs one: `SESSIONKIT_POSTGRES_URL`
/// (`scripts/postgres-start.sh` prints one). Without it such tests are skipped with a note, unless
/// `SESSIONKIT_REQUIRE_POSTGRES=1` (CI), which makes them run and fail.
///
/// ```swift
/// @Suite(.enabled(if: TestPostgresEnvironment.shouldRun, "needs SESSIONKIT_POSTGRES_URL"))
/// ```
package enum TestPostgresEnvironment {
    /// The database URL, or `nil` when none is set.
    package static var url: String? {
        ProcessInfo.processInfo.environment["SESSIONKIT_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Whether `SESSIONKIT_REQUIRE_POSTGRES=1` asks for the tests to fail rather than be skipped.
    package static var isRequired: Bool {
        ProcessInfo.processInfo.environment["SESSIONKIT_REQUIRE_POSTGRES"] == "1"
    }

    /// Whether PostgreSQL tests should run: a URL is set, or one is required (and the tests will fail).
    package static var shouldRun: Bool { url != nil || isRequired }

    /// The note a skipped test shows.
    package static let skipReason =
        "needs SESSIONKIT_POSTGRES_URL: run `export SESSIONKIT_POSTGRES_URL=$(scripts/postgres-start.sh)`"

    /// The failure of a test that needs the URL when none is set.
    package struct Missing: Error, CustomStringConvertible {
        /// Creates the failure.
        package init() {}

        /// What is missing and how to start a database.
        package var description: String {
            "SESSIONKIT_REQUIRE_POSTGRES=1 but SESSIONKIT_POSTGRES_URL is not set; start one with "
                + "scripts/postgres-start.sh"
        }
    }
}
