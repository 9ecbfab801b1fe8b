import Foundation
import SessionKit

/// Browser sign-in with PKCE: listen on 127.0.0.1, open the authorization URL, exchange the code.
struct BrowserSignIn {
    let context: SessionContext
    let port: Int
    let open: Bool
    let timeout: Int

    func run() async throws(SessionKitError) -> Credentials {
        let listener = try await LoopbackRedirectListener.start(port: port)
        let request: AuthorizationRequest
        do {
            request = try await context.provider.authorizationRequest(redirectURI: listener.redirectURI)
        } catch {
            await listener.stop()
            throw error
        }
        if open && Self.openBrowser(request.url) {
            Terminal.err("Opened your browser to sign in. If it did not open, visit:")
        } else {
            Terminal.err("Open this URL in a browser to sign in:")
        }
        Terminal.err("  \(request.url.absoluteString)")
        Terminal.err(Terminal.dim("Waiting for the browser on \(listener.redirectURI.absoluteString) ..."))
        let callback = try await listener.waitForCallback(timeout: .seconds(timeout))
        return try await context.provider.exchange(callback: callback, for: request)
    }

    /// Opens `url` with the system's opener; `false` when there is none or it failed.
    private static func openBrowser(_ url: URL) -> Bool {
        #if os(macOS)
            let opener = "/usr/bin/open"
        #else
            let opener = ["/usr/bin/xdg-open", "/usr/local/bin/xdg-open"].first {
                FileManager.default.isExecutableFile(atPath: $0)
            }
        #endif
        guard let opener else { return false }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: opener)
        process.arguments = [url.absoluteString]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
            process.waitUntilExit()
            return process.terminationStatus == 0
        } catch {
            return false
        }
    }
}
