import QRCode
import SessionKit
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Device sign-in: show the code (and a QR code on a terminal), poll with a spinner until approved.
struct DeviceSignIn {
    let context: SessionContext
    let timeout: Int

    func run() async throws(SessionKitError) -> Credentials {
        let authorization = try await context.provider.startDeviceAuthorization()
        Terminal.err("To sign in, open \(Terminal.bold(authorization.verificationURI.absoluteString))")
        Terminal.err("and enter the code \(Terminal.bold(authorization.userCode))")
        if let complete = authorization.verificationURIComplete {
            Terminal.err("or open \(complete.absoluteString)")
            if Terminal.stderrIsTerminal, let code = try? QRCode(encoding: complete.absoluteString) {
                Terminal.err(code.terminalString())
            }
        }
        let spinner = Spinner(enabled: Terminal.stderrIsTerminal)
        defer { spinner.finish() }
        let limit = min(Double(timeout), authorization.expiresAt.timeIntervalSinceNow)
        let provider = context.provider
        return try await withDeadline(seconds: limit) { () async throws(SessionKitError) -> Credentials in
            try await provider.pollDeviceAuthorization(authorization) { spinner.tick() }
        }
    }
}

/// A one-character spinner on standard error.
final class Spinner: Sendable {
    private let frame = Mutex(0)
    private let enabled: Bool

    init(enabled: Bool) {
        self.enabled = enabled
    }

    func tick() {
        guard enabled else { return }
        let frames = ["|", "/", "-", "\\"]
        let index = frame.withLock { value in
            defer { value += 1 }
            return value % frames.count
        }
        Terminal.errRaw("\r\(frames[index]) waiting for approval...")
    }

    func finish() {
        if enabled { Terminal.errRaw("\r\u{1B}[K") }
    }
}

/// Runs `body`, failing with a timeout error after `seconds`.
func withDeadline<T: Sendable>(
    seconds: Double,
    _ body: @escaping @Sendable () async throws(SessionKitError) -> T
) async throws(SessionKitError) -> T {
    do {
        return try await withThrowingTaskGroup(of: T.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: .seconds(max(seconds, 0)))
                throw SessionKitError(
                    code: .timeout, message: "sign-in was not approved within \(Int(seconds)) s; try again")
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else {
                throw SessionKitError(code: .cancelled, message: "sign-in was cancelled")
            }
            return first
        }
    } catch let error as SessionKitError {
        throw error
    } catch {
        throw SessionKitError(code: .cancelled, message: "sign-in was cancelled")
    }
}
