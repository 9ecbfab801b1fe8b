// swift-tools-version:6.2
import PackageDescription

// Our own targets build in Swift 6 language mode with the house's upcoming features (see STYLE.md), set on
// every target at the end of this file. CI sets SESSIONKIT_WERROR=1 so that any warning in our code fails the
// build; dependencies are unaffected.
let strictSettings: [SwiftSetting] = {
    var settings: [SwiftSetting] = [
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("MemberImportVisibility"),
        .enableUpcomingFeature("InternalImportsByDefault"),
    ]
    if Context.environment["SESSIONKIT_WERROR"] == "1" {
        settings.append(.treatAllWarnings(as: .error))
    }
    return settings
}()

let package = Package(
    name: "SessionKit",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        // What an app depends on: tokens, the provider client, the session manager and secure storage.
        // It does not pull in the emulator's server stack.
        .library(name: "SessionKit", targets: ["SessionKit"]),
        // The loopback redirect listener for browser sign-in in command-line tools and desktop apps.
        .library(name: "SessionKitLoopback", targets: ["SessionKitLoopback"]),
        // Secure key-value storage on its own (Keychain, encrypted files, memory).
        .library(name: "SecureStore", targets: ["SecureStore"]),
        // For back ends, whatever the store: many users' sessions in one process (SessionDirectory), following
        // a store's change feed and sweeping idle sessions as swift-service-lifecycle services.
        .library(name: "SessionKitServer", targets: ["SessionKitServer"]),
        // The PostgreSQL store for SessionKitServer, shared by many instances, on PostgresNIO's PostgresClient.
        // Only what depends on it links PostgresNIO.
        .library(name: "SessionKitPostgres", targets: ["SessionKitPostgres"]),
        // For web back ends on Hummingbird: a back end for front ends (sign-in routes, a session cookie, an API
        // proxy that attaches fresh tokens). Apps and sessionctl never link it.
        .library(name: "SessionKitBFF", targets: ["SessionKitBFF"]),
        // The example back end for front ends, against the emulator and a local PostgreSQL.
        .executable(name: "sessionkit-bff", targets: ["sessionkit-bff"]),
        // The local Auth0-compatible identity provider, for tests and demos.
        .library(name: "AuthEmulator", targets: ["AuthEmulator"]),
        // For store authors: the conformance suite every SecureStore backend must pass. Needs only SecureStore.
        .library(name: "SecureStoreTesting", targets: ["SecureStoreTesting"]),
        // For an app's own tests: the emulator started on loopback, a browser for loopback sign-ins, a clock tests
        // move, captured logs, temporary folders. The repository's own test machinery is in SessionKitTestSupport,
        // which is not a product.
        .library(name: "SessionKitTesting", targets: ["SessionKitTesting"]),
        // The command-line client: the client only, no server stack.
        .executable(name: "sessionctl", targets: ["sessionctl"]),
        // The emulator as a program (`serve`) and the demo of the whole session story against it (`demo`).
        .executable(name: "sessionkit-emulator", targets: ["sessionkit-emulator"]),
    ],
    traits: [
        .default(enabledTraits: ["AsyncHTTPClientOnLinux"]),
        // On Linux the core sends its requests with AsyncHTTPClient (SessionKitAsyncHTTPClient): the only
        // configuration in which it links SwiftNIO. On Apple platforms URLSession is the transport and this trait
        // changes nothing. Without it, on Linux, an app passes its own transport (or uses URLSessionOnLinux);
        // scripts/linkage-check.sh builds that way to prove the core itself needs no NIO.
        .trait(
            name: "AsyncHTTPClientOnLinux",
            description: "On Linux, make AsyncHTTPClientTransport (SwiftNIO) the default transport."),
        // URLSessionTransport is compiled on Apple platforms, where it is the default. On Linux it would link
        // FoundationNetworking and libcurl (with some twenty shared libraries) into every SessionKit program,
        // so it is compiled there only with this trait: `swift build --traits default,URLSessionOnLinux`
        // (scripts/test does, for the shared transport tests).
        .trait(name: "URLSessionOnLinux", description: "Compile URLSessionTransport on Linux too."),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.0.0"),
        // `swift package generate-documentation` for the DocC catalogues (a plugin: nothing of it is linked).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.0"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.7.1"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.0"),
        // NIOHTTPTypes for SessionKitBFF's event-loop forwarding: the request and answer parts of Hummingbird's
        // pipeline (already in the graph through Hummingbird).
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.34.1"),
        // HTTP field types for SessionKitBFF (already in the graph through Hummingbird).
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        // Services and graceful shutdown for the server targets (already in the graph through Hummingbird and
        // PostgresNIO).
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.8.0"),
        // Metrics and spans for the server targets (in the graph through Hummingbird already).
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.1.0"),
    ],
    targets: [
        // Not a product: the machinery several targets share, one spelling each: hex and the SHA-256 names made
        // with it, base64url, a constant-time comparison of secrets, the deadline heap, Duration's conversions,
        // HTML escaping, and the JSON value with its parser and writer. Its API is `package`, except `JSONValue`, which SessionKit
        // and AuthEmulator re-export (it is in their public API). Foundation and swift-crypto only: the core and
        // SecureStore depend on it, so it must never link SwiftNIO (scripts/linkage-check.sh).
        .target(
            name: "SessionKitSupport",
            dependencies: [.product(name: "Crypto", package: "swift-crypto")]
        ),
        // Not a product: the Hummingbird responses the emulator and the back end for front ends give (JSON, pages,
        // redirects; never cached, never sniffed), built once.
        .target(
            name: "HummingbirdAnswers",
            dependencies: [
                "SessionKitSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        .target(
            name: "SecureStore",
            dependencies: [
                "SessionKitSupport",
                "CKernelKeyring",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // keyctl(2) and add_key(2) with typed signatures, for SecureStore's kernel keyring (Swift cannot call the
        // variadic syscall(2)). Empty elsewhere than Linux.
        .target(name: "CKernelKeyring"),
        // The core: credentials, the provider client, validation, the session manager. It imports no SwiftNIO
        // and no AsyncHTTPClient on any platform; on Linux it depends on the transport below.
        .target(
            name: "SessionKit",
            dependencies: [
                "SecureStore",
                "SessionKitSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
                .target(
                    name: "SessionKitAsyncHTTPClient",
                    condition: .when(platforms: [.linux], traits: ["AsyncHTTPClientOnLinux"])),
            ]
        ),
        // The core's HTTP exchange on AsyncHTTPClient, for Linux; its API is `package`, Foundation types only.
        .target(
            name: "SessionKitAsyncHTTPClient",
            dependencies: [
                "SessionKitSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // The loopback redirect listener for browser sign-in from a terminal or a desktop app (RFC 8252), on
        // SwiftNIO. Only what names it links it: sessionctl does, an iOS app does not.
        .target(
            name: "SessionKitLoopback",
            dependencies: [
                "SessionKit",
                "SessionKitSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .target(
            name: "AuthEmulator",
            dependencies: [
                "HummingbirdAnswers",
                "SessionKitSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
        .target(name: "SecureStoreTesting", dependencies: ["SecureStore"]),
        .target(
            name: "SessionKitServer",
            dependencies: [
                "SecureStore",
                "SessionKit",
                "SessionKitSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        .target(
            name: "SessionKitPostgres",
            dependencies: [
                "SecureStore",
                "SessionKitSupport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        .target(
            name: "SessionKitBFF",
            dependencies: [
                "HummingbirdAnswers",
                "SecureStore",
                "SessionKit",
                "SessionKitServer",
                "SessionKitSupport",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        .executableTarget(
            name: "sessionkit-bff",
            dependencies: [
                "SecureStore",
                "SessionKit",
                "SessionKitServer",
                "SessionKitPostgres",
                "SessionKitBFF",
                "SessionKitSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .target(
            name: "SessionKitTesting",
            dependencies: [
                "SecureStore", "SessionKit", "AuthEmulator",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Not a product: this repository's own test machinery (child processes, the test keyring and PostgreSQL,
        // built programs, free loopback ports), its API `package`, for the test targets only.
        .target(
            name: "SessionKitTestSupport",
            dependencies: ["SecureStore", "SessionKit", "SessionKitLoopback"],
            path: "Tests/Support"
        ),
        // Not a product: the test PostgreSQL's stores (SESSIONKIT_POSTGRES_URL), for SessionKitPostgresTests and
        // SessionKitServerTests.
        .target(
            name: "SessionKitPostgresTestSupport",
            dependencies: [
                "SecureStore", "SessionKitPostgres", "SessionKitTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Tests/PostgresSupport"
        ),
        // The QR code encoder sessionctl draws device sign-in links with.
        .target(name: "QRCode"),
        .executableTarget(
            name: "sessionctl",
            dependencies: [
                "SessionKit",
                "SessionKitLoopback",
                "SessionKitSupport",
                "QRCode",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // SwiftPM links executables with --export-dynamic on Linux; the Swift runtime's start-up (the
            // backtracer's dladdr) then walks every exported symbol, 38,000 of them in sessionctl: 1.4 M of the
            // 7.3 M instructions `sessionctl token` took (BENCHMARKS.md, issue 13). Nothing loads sessionctl as a
            // library, so it exports nothing.
            linkerSettings: [.unsafeFlags(["-Xlinker", "--no-export-dynamic"], .when(platforms: [.linux]))]
        ),
        .executableTarget(
            name: "sessionkit-emulator",
            dependencies: [
                "SessionKit",
                "AuthEmulator",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Test helper: the encrypted file store on the command line, run as child processes by
        // SecureStoreTests (several writers at once, writers killed mid-write). Not a product.
        // Test support: one server instance's SessionDirectory in a process of its own, for the multi-process
        // tests and benchmarks of SessionKitServer.
        .executableTarget(
            name: "sessionkit-directory-load",
            dependencies: [
                "SessionKit", "SessionKitServer", "SessionKitPostgres", "SecureStore", "SessionKitSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOPosix", package: "swift-nio"),
                // LOAD_STATEMENT_COST compares the store's statements with PostgresNIO's own.
                .product(name: "PostgresNIO", package: "postgres-nio"),
                // Counts the store's calls by operation for the summary.
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ]
        ),
        // Not a product: an app-like program on the SessionKit product alone, for scripts/linkage-check.sh (an app
        // links no SwiftNIO and no AsyncHTTPClient).
        .executableTarget(
            name: "sessionkit-linkage-probe",
            dependencies: ["SessionKit", "SecureStore"],
            path: "Tests/Linkage"
        ),
        // Not a product: an app or its extension as a process, sharing a session through KeychainStore over the
        // keychain model in a shared folder, for KeychainSharingTests.
        .executableTarget(
            name: "sessionkit-app-process",
            dependencies: [
                "SessionKit", "SecureStore", "SecureStoreTesting", "SessionKitSupport",
            ],
            path: "Tests/AppProcess"
        ),
        .executableTarget(
            name: "securestore-tool",
            dependencies: ["SecureStore"]
        ),
        // The shared machinery on its own: hex, base64url, the constant-time comparison, the deadline heap, Duration's
        // conversions, the JSON parser and writer against Foundation's.
        .testTarget(
            name: "SessionKitSupportTests",
            dependencies: ["SessionKitSupport", .product(name: "Crypto", package: "swift-crypto")]
        ),
        .testTarget(
            name: "SecureStoreTests",
            dependencies: [
                "SecureStore", "SecureStoreTesting", "SessionKitTesting", "SessionKitTestSupport", "SessionKit",
                "AuthEmulator", "securestore-tool", "sessionkit-app-process",
            ]
        ),
        .testTarget(
            name: "SessionKitTests",
            dependencies: [
                "SessionKit", "SessionKitLoopback", "SessionKitTesting", "SessionKitTestSupport", "AuthEmulator",
                "SessionKitSupport",
                // Only for an app's own server in the tests: the CIBA ping receiver's notification endpoint.
                .product(name: "Hummingbird", package: "hummingbird"),
            ]
        ),
        .testTarget(
            name: "sessionctlTests",
            dependencies: [
                "sessionctl", "sessionkit-emulator", "SessionKit", "SessionKitTesting", "SessionKitTestSupport",
                "AuthEmulator", "SecureStore", "SessionKitSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(name: "QRCodeTests", dependencies: ["QRCode", "SessionKitTestSupport"]),
        // SessionDirectory, SessionManager over the server's stores, and several instances as processes.
        .testTarget(
            name: "SessionKitServerTests",
            dependencies: [
                "SessionKitServer", "SessionKitPostgres", "sessionkit-directory-load", "SecureStore",
                "SessionKitTesting", "SessionKitTestSupport", "SessionKitPostgresTestSupport", "SessionKit",
                "AuthEmulator", "SessionKitSupport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // The PostgreSQL store on its own: statement batching, versioned writes, leases, sweeps, TLS, encryption,
        // deadlines, the commit watch, row sealing.
        .testTarget(
            name: "SessionKitPostgresTests",
            dependencies: [
                "SessionKitPostgres", "SessionKitServer", "SecureStore", "SecureStoreTesting", "SessionKitTesting",
                "SessionKitTestSupport", "SessionKitPostgresTestSupport", "SessionKit", "AuthEmulator",
                "SessionKitSupport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(
            name: "SessionKitBFFTests",
            dependencies: [
                "SessionKitBFF", "sessionkit-bff", "SessionKitServer", "SessionKitPostgres", "SessionKitTesting",
                "SessionKitTestSupport", "SessionKit", "SecureStore", "SessionKitSupport",
                "AuthEmulator",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        // The back end for front ends' fast tier: its router answered in this process (HummingbirdTesting's
        // `.router`) over the in-memory store, and its rules on their own. No PostgreSQL, no process of its own:
        // it cannot import SessionKitPostgres. What needs processes and the database is in SessionKitBFFTests.
        .testTarget(
            name: "SessionKitBFFRouterTests",
            dependencies: [
                "SessionKitBFF", "SessionKitServer", "SessionKit", "SecureStore", "SessionKitTesting", "AuthEmulator",
                "SessionKitTestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "AuthEmulatorTests",
            dependencies: [
                "SessionKitTesting",
                "AuthEmulator",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
    ]
)

for target in package.targets {
    target.swiftSettings = strictSettings
}
