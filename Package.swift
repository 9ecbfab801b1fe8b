// swift-tools-version:6.2
import PackageDescription

// Our own targets build in Swift 6 language mode with the house's upcoming features (see STYLE.md).
// CI sets SESSIONKIT_WERROR=1 so that any warning in our code fails the build; dependencies are unaffected.
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
        // Secure key-value storage on its own (Keychain, encrypted files, memory).
        .library(name: "SecureStore", targets: ["SecureStore"]),
        // The local Auth0-compatible identity provider, for tests and demos.
        .library(name: "AuthEmulator", targets: ["AuthEmulator"]),
        // Shared test support: the store conformance suite and live-emulator helpers.
        .library(name: "SessionKitTesting", targets: ["SessionKitTesting"]),
        // The command-line client.
        .executable(name: "sessionctl", targets: ["sessionctl"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.0.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.0"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.7.1"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.0"),
    ],
    targets: [
        .target(
            name: "SecureStore",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto")
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "SessionKit",
            dependencies: [
                "SecureStore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "AuthEmulator",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "SessionKitTesting",
            dependencies: [
                "SecureStore", "SessionKit", "AuthEmulator", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "sessionctl",
            dependencies: [
                "SessionKit",
                "AuthEmulator",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // Test helper: the encrypted file store on the command line, run as child processes by
        // SecureStoreTests (several writers at once, writers killed mid-write). Not a product.
        .executableTarget(
            name: "securestore-tool",
            dependencies: ["SecureStore"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "SecureStoreTests",
            dependencies: ["SecureStore", "SessionKitTesting", "securestore-tool"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "SessionKitTests",
            dependencies: ["SessionKit", "SessionKitTesting", "AuthEmulator"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "sessionctlTests",
            dependencies: [
                "sessionctl", "SessionKit", "SessionKitTesting", "AuthEmulator", "SecureStore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "AuthEmulatorTests",
            dependencies: [
                "SessionKitTesting",
                "AuthEmulator",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
    ]
)
