import Foundation
import SessionKit
import SessionKitSupport

#if canImport(Glibc)
    import Glibc
#endif

/// What the third-party providers under `Interop/` have in common: a server started by its `start.sh`, found
/// through an environment variable or the port it recorded, with the project's token-request counter.
enum LoopbackInteropServer {
    /// The running server: the URL in `variable` (as `.ci/run` sets it), else the port that `Interop/<folder>/
    /// start.sh` recorded for a process that is still alive; `nil` otherwise.
    static func running(variable: String, folder: String) -> URL? {
        if let url = ProcessInfo.processInfo.environment[variable], !url.isEmpty {
            return URL(string: url)
        }
        let run = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Interop/\(folder)/var/run")
        func read(_ name: String) -> String? {
            (try? String(contentsOf: run.appendingPathComponent(name), encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        // A port file left by a server that is gone (a crash, a reboot) does not count.
        guard let pid = read("pid").flatMap({ pid_t($0) }), kill(pid, 0) == 0, let port = read("port") else {
            return nil
        }
        return URL(string: "http://127.0.0.1:\(port)")
    }

    /// How many refresh-token grants the server at `base` received that presented one of `refreshTokens`, from
    /// the project's counting middleware (`interop/token_requests.py`), which knows them by SHA-256 only.
    static func refreshGrants(at base: URL, presenting refreshTokens: [String]) async throws -> Int {
        let digests = refreshTokens.map(Hex.sha256)
        var components = URLComponents(
            url: base.appendingPathComponent("interop/token-requests/"), resolvingAgainstBaseURL: false)
        components?.queryItems = [URLQueryItem(name: "refresh_token_sha256", value: digests.joined(separator: ","))]
        let url = components?.url ?? base
        let response = try await ProviderClient.defaultTransport.send(
            HTTPRequest(method: "GET", url: url), timeout: .seconds(10))
        guard response.status == 200, let count = try JSONValue(parsing: response.body)["presenting"]?.intValue else {
            throw TestFailure("the token-request counter answered HTTP \(response.status)")
        }
        return count
    }
}
