import AuthEmulator
import Foundation
import NIOHTTP1
import SessionKitTesting
import Testing

/// A real browser, once: headless Chromium opens the example's page, follows "Sign in", types the email and
/// password into the emulator's form, and lands back on the page, which shows the user's name and the API's
/// answer. Skipped with a note unless `chromium` is on PATH; `SESSIONKIT_REQUIRE_BROWSER=1` (CI) makes its absence
/// a failure.
@Suite("Headless Chromium", .serialized, .enabled(if: Chromium.shouldRun, Chromium.skipNote))
struct ChromiumTests {
    @Test(
        "Chromium signs in through the example's page, shows the user and the API's answer, signs out, and is asked for the password again"
    )
    func signInWithChromium() async throws {
        #expect(Chromium.path != nil, "SESSIONKIT_REQUIRE_BROWSER=1 but chromium is not on PATH")
        guard Chromium.path != nil else { return }
        try await LiveEmulator.with { emulator in
            let deployment = BFFPostgres.Deployment()
            let folder = try TemporaryFolder(prefix: "sessionkit-chromium")
            defer { folder.remove() }
            let keyFile = try ProcessInstance.keyFile(for: deployment, in: folder)
            let app = try await ProcessInstance.start(emulator: emulator, deployment: deployment, keyFile: keyFile)
            let screenshot =
                ProcessInfo.processInfo.environment["SESSIONKIT_BFF_SCREENSHOT"]
                ?? folder.url.appendingPathComponent("signed-in.png").path
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [
                "python3", Chromium.root.appendingPathComponent("scripts/chromium-sign-in.py").path,
                app.url.absoluteString + "/", AuthEmulator.User.aliceEmail, AuthEmulator.User.alicePassword, screenshot,
            ]
            let outputFile = folder.url.appendingPathComponent("result.json")
            _ = FileManager.default.createFile(atPath: outputFile.path, contents: nil)
            process.standardOutput = try FileHandle(forWritingTo: outputFile)
            try process.run()
            // Polled, not waited for: the emulator in this process needs the cooperative threads meanwhile.
            let deadline = ContinuousClock.now + .seconds(90)
            while process.isRunning, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(100)) }
            if process.isRunning { process.terminate() }
            await app.stop()
            let data = try Data(contentsOf: outputFile)
            let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
            let result = object.compactMapValues { $0 as? String }
            #expect(process.terminationStatus == 0, "\(String(decoding: data, as: UTF8.self))")
            let signedIn = result["signed_in_text"] ?? ""
            #expect(signedIn.hasPrefix("Signed in as "), "the page shows: \(signedIn)")
            #expect(signedIn.contains(AuthEmulator.User.aliceEmail))
            #expect(
                (result["api_text"] ?? "").hasPrefix("200 "),
                "the API call through the proxy: \(result["api_text"] ?? "")")
            #expect((result["api_text"] ?? "").contains(AuthEmulator.User.aliceEmail))
            #expect(result["url"] == app.url.absoluteString + "/")
            // Signed out, at the app and at the provider: the next sign-in asks for the password again.
            #expect(result["signed_out_text"] == "Not signed in.")
            #expect(object["asked_again"] as? Bool == true, "the provider asked for the password after sign-out")
            let png = try Data(contentsOf: URL(fileURLWithPath: screenshot))
            #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]), "a PNG screenshot")
        }
    }
}

/// Where Chromium is, and whether the test must run.
enum Chromium {
    static var path: String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for folder in path.split(separator: ":") {
            let candidate = "\(folder)/chromium"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    static var isRequired: Bool { ProcessInfo.processInfo.environment["SESSIONKIT_REQUIRE_BROWSER"] == "1" }

    static var shouldRun: Bool { (path != nil || isRequired) && BFFPostgres.shouldRun }

    static let skipNote: Comment = "needs `chromium` on PATH (Debian: apt-get install chromium) and PostgreSQL"

    /// The repository's root, from this file's path.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
}
