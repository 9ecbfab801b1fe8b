import AuthEmulator
import Foundation
import SessionKit
import SessionKitTesting

/// The AuthEmulator as an ``InteropProvider``: a fresh instance per scenario, its sign-in form filled in by
/// the scripted browser (no automatic sign-in), 10-second access tokens so that expiry happens for real.
struct EmulatorInteropProvider: InteropProvider {
    let emulator: AuthEmulator

    static func start() async throws -> EmulatorInteropProvider {
        EmulatorInteropProvider(
            emulator: try await LiveEmulator.start(LiveEmulator.configuration { $0.lifetimes.accessToken = 10 }))
    }

    var name: String { "AuthEmulator" }
    var issuer: URL { emulator.issuer }
    var username: String { AuthEmulator.User.aliceEmail }
    var password: String { AuthEmulator.User.alicePassword }
    var overrides: EndpointOverrides { .init() }
    var confidentialClient: (id: String, secret: String)? {
        (AuthEmulator.Client.confidentialID, AuthEmulator.Client.confidentialSecret)
    }

    func clientID(for flow: SignInFlow) -> String { AuthEmulator.Client.nativeID }

    func completeBrowserSignIn(at authorizationURL: URL, in browser: ScriptedBrowser) async throws
        -> ScriptedBrowser.Page
    {
        let form = try await browser.open(authorizationURL)
        return try await browser.submit(form, ["username": username, "password": password])
    }

    func approveDevice(userCode: String, verificationURI: URL, in browser: ScriptedBrowser) async throws {
        let page = try await browser.open(verificationURI)
        let done = try await browser.submit(
            page, ["user_code": userCode, "username": username, "password": password, "action": "approve"])
        guard done.status == 200, done.html.contains("Device approved") else {
            throw TestFailure("the emulator did not approve the device: \(done.html.prefix(200))")
        }
    }

    /// Every refresh-token grant this emulator received: each scenario has its own emulator, so they are
    /// all the scenario's session's.
    func refreshGrants(presenting refreshTokens: [String]) async throws -> Int {
        try await emulator.controls.requestCounts()[.refreshToken]
    }

    func stop() async { await emulator.stop() }
}
