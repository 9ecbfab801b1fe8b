import Foundation
import SecureStore
import Testing

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

@Suite("EncryptedFileStore: writers killed mid-write")
struct CrashTests {
    @Test("after SIGKILL at random moments the file reads as an old or a new value, never damaged")
    func killedWriter() async throws {
        let tool = try ChildProcess.toolPath()
        try await TemporaryFolder.with { folder in
            let store = try makeFileStore(folder, service: "crash")
            var last = -1
            var advances = 0
            var maximumDelay: UInt32 = 60_000
            let rounds = 50
            let deadline = ContinuousClock.now + .seconds(45)
            for round in 0..<rounds where ContinuousClock.now < deadline {
                let child = try ChildProcess.spawn(tool, [folder, "crash", "write-loop", "seq", String(last + 1)])
                let delay = UInt32.random(in: 5_000...maximumDelay)
                let termination = try await onDedicatedThread {
                    usleep(delay)
                    child.send(SIGKILL)
                    return child.wait()
                }
                #expect(termination == .signaled(SIGKILL), "round \(round): the writer ended before it was killed")
                // A damaged file throws here, which fails the test.
                guard let value = try store.data(forKey: "seq") else {
                    #expect(last == -1, "round \(round): the value vanished")
                    maximumDelay = min(maximumDelay * 2, 2_000_000)
                    continue
                }
                let text = String(decoding: value.prefix(24), as: UTF8.self)
                let n = try #require(text.split(separator: ":").first.flatMap { Int($0) }, "round \(round)")
                #expect(value == toolPayload(n), "round \(round): value \(n) is not what the writer wrote")
                #expect(n >= last, "round \(round): went back from \(last) to \(n)")
                // On a loaded machine a writer may not get to write before the kill: give it longer.
                maximumDelay = n > last ? 60_000 : min(maximumDelay * 2, 2_000_000)
                if n > last { advances += 1 }
                last = n
                let temporaries = try TemporaryFolder.contents(folder).filter { $0.contains(".tmp-") }
                #expect(temporaries.count <= 1, "round \(round): stale temporary files \(temporaries)")
            }
            #expect(advances >= 5, "the writers were killed before they wrote anything; the test proved nothing")
            try store.setString("after", forKey: "other")
            #expect(try TemporaryFolder.contents(folder).filter { $0.contains(".tmp-") } == [])
        }
    }
}
