import SessionKit
import SessionKitLoopback
import Synchronization

/// Ports for tests that must name a redirect port before anything listens on it.
package enum LoopbackPort {
    /// A port that was free on `127.0.0.1` and `::1` a moment ago, taken from below the kernel's ephemeral range.
    ///
    /// A port the kernel handed out (`bind` to port 0) is soon handed out again to another test running in
    /// parallel; ports in 20000..<32000 are never handed out that way, so only another caller of this method
    /// could take the same one: it draws at random, and never hands out a port twice in one process (two tests
    /// running at once could otherwise both probe the same free port before either listens on it).
    package static func unused() async throws -> Int {
        for _ in 0..<50 {
            let port = Int.random(in: 20000..<32000)
            guard handedOut.withLock({ $0.insert(port).inserted }) else { continue }
            guard let uri = try? LoopbackRedirectURI("http://localhost:\(port)/probe"),
                let probe = try? await LoopbackRedirectListener.start(redirectURI: uri)
            else { continue }
            await probe.stop()
            return port
        }
        throw SessionKitError(
            code: .invalidConfiguration, message: "no free loopback port in 20000..<32000 after 50 tries")
    }

    /// The ports this process has handed out.
    private static let handedOut = Mutex<Set<Int>>([])
}
