import AuthEmulator
import Foundation
import SessionKitTestSupport
import SessionKitTesting
import Testing

/// The refresh lock's second rule through `sessionctl` processes: a lock that cannot be had in time is a retryable
/// error, never a renewal without it. (The first, that a holder whose lease lapsed while it stalled sends nothing, is
/// `RenewalSafetyTests.stalledHolder` in the library, on a clock the test moves: libfaketime, which would move a
/// process's clock, leaves a Swift program without its arguments, swiftlang/swift#76080.)
@Suite("The refresh lock's rules through sessionctl processes")
struct RefreshLockCLITests {
    @Test("a store lock that cannot be had in time: exit 3, the session kept, no refresh token sent")
    func lockNotHad() async throws {
        try await LiveEmulator.with(LiveEmulator.configuration { $0.lifetimes.accessToken = 2 }) { emulator in
            let cli = try CLI.make(for: emulator)
            defer { cli.cleanUp() }
            try await cli.signIn()
            try await Task.sleep(for: .milliseconds(2100))  // the stored access token has expired
            try await emulator.controls.resetRequestCounts()
            let lock = try FileLockHolder(folder: cli.sessionsFolder)
            let locked = try await cli.run(["token"])
            lock.release()
            #expect(locked.status == 3, "\(locked.stderr)")
            #expect(locked.stdout.isEmpty)
            #expect(locked.stderr.contains("try again"), "\(locked.stderr)")
            #expect(try await emulator.controls.requestCounts()[.refreshToken] == 0, "no renewal without the lock")
            let after = try await cli.run(["token"])
            #expect(after.status == 0, "the session was kept: \(after.stderr)")
            #expect(try await emulator.controls.requestCounts()[.refreshToken] == 1)
        }
    }
}
