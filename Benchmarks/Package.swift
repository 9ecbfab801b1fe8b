// swift-tools-version:6.2
import PackageDescription

// The benchmarks, kept out of the main package so that CI's build of it does not grow. Build and run
// them in release mode (BENCHMARKS.md has one command for each):
//
//     swift build --package-path Benchmarks -c release --static-swift-stdlib
//     Benchmarks/.build/release/credentials-bench
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "SessionKitBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "SessionKit", path: ".."),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.0.0"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.7.1"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
    ],
    targets: [
        // Timing, percentiles and the printed tables every benchmark shares.
        .target(name: "BenchmarkSupport", swiftSettings: strictSettings),
        // Issue 46: Hummingbird and AsyncHTTPClient with nothing of SessionKit's, the floor of a forwarded request.
        .executableTarget(
            name: "stack-floor",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        // The floor of the CLI comparison: a hello-world built exactly like sessionctl.
        .executableTarget(name: "hello", swiftSettings: strictSettings),
        // The floor of a program that links Foundation, built the same way: what Foundation alone costs.
        .executableTarget(name: "hello-foundation", swiftSettings: strictSettings),
        // Issue 8, item 2: credentials() on a valid session against reading the store on every call.
        .executableTarget(
            name: "credentials-bench",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "SessionKit", package: "SessionKit"),
                .product(name: "SecureStore", package: "SessionKit"),
            ],
            swiftSettings: strictSettings
        ),
        // Issue 8, item 3: 10,000 concurrent credentials() on an expired session against the live emulator.
        .executableTarget(
            name: "refresh-storm",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "SessionKit", package: "SessionKit"),
                .product(name: "SecureStore", package: "SessionKit"),
                .product(name: "AuthEmulator", package: "SessionKit"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // Issue 25: a DPoP proof per request against raw P-256 signing; credentials(audience:) from memory.
        .executableTarget(
            name: "token-features-bench",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "SessionKit", package: "SessionKit"),
                .product(name: "SecureStore", package: "SessionKit"),
                .product(name: "AuthEmulator", package: "SessionKit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // Issue 23: a directory whose sessions outnumber its cache (eviction under the cache's lock).
        .executableTarget(
            name: "directory-churn",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "SessionKit", package: "SessionKit"),
                .product(name: "SessionKitServer", package: "SessionKit"),
                .product(name: "SecureStore", package: "SessionKit"),
            ],
            swiftSettings: strictSettings
        ),
        // Issue 8, item 4: ID-token validation against raw swift-crypto verification and jwt-kit.
        .executableTarget(
            name: "idtoken-bench",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "SessionKit", package: "SessionKit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
            ],
            swiftSettings: strictSettings
        ),
    ]
)
