import SessionKit
import SessionKitLoopback

/// Ports for tests that must name a redirect port before anything listens on it.
public enum LoopbackPort {
    /// A port that was free on `127.0.0.1` and `::1` a moment ago, taken from below the kernel's ephemeral range.
    ///
    /// A port the kernel handed out (`bind` to port 0) is soon handed out again to another test running in
    /// parallel; ports in 20000..<32000 are never handed out that way, so only another caller of this method
    /// could take the same one, and it draws at random.
    public static func unused() async throws -> Int {
        for _ in 0..<50 {
            let port = Int.random(in: 20000..<32000)
            guard let uri = try? LoopbackRedirectURI("http://localhost:\(port)/probe"),
                let probe = try? await LoopbackRedirectListener.start(redirectURI: uri)
            else { continue }
            await probe.stop()
            return port
        }
        throw SessionKitError(
            code: .invalidConfiguration, message: "no free loopback port in 20000..<32000 after 50 tries")
    }
}
