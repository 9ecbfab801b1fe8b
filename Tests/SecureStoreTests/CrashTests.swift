import Foundation
import SecureStore
import SessionKitTestSupport
import SessionKitTesting
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
            let rounds = 50
            // Enough rounds to prove something even when fsync is slow (a machine busy writing elsewhere):
            // stop after 45 s only once 5 writes have been seen, and after 150 s in any case.
            let start = ContinuousClock.now
            for round in 0..<rounds {
                let elapsed = ContinuousClock.now - start
                if elapsed > .seconds(150) || (elapsed > .seconds(45) && advances >= 5) { break }
                let child = try ChildProcess.spawn(tool, [folder, "crash", "write-loop", "seq", String(last + 1)])
                let previous = last
                let termination = try await onDedicatedThread {
                    // Wait for this writer's first write (a loaded machine may take a while to start it), then
                    // kill it at a random moment of its loop, most likely in the middle of a later write.
                    let patience = ContinuousClock.now + .seconds(20)
                    while ContinuousClock.now < patience, Self.sequenceNumber(in: store) ?? -1 <= previous {
                        usleep(1_000)
                    }
                    usleep(UInt32.random(in: 0...20_000))
                    child.send(SIGKILL)
                    return child.wait()
                }
                #expect(termination == .signaled(SIGKILL), "round \(round): the writer ended before it was killed")
                // A damaged file throws here, which fails the test.
                guard let value = try store.data(forKey: "seq") else {
                    #expect(last == -1, "round \(round): the value vanished")
                    continue
                }
                let text = String(decoding: value.prefix(24), as: UTF8.self)
                let n = try #require(text.split(separator: ":").first.flatMap { Int($0) }, "round \(round)")
                #expect(value == toolPayload(n), "round \(round): value \(n) is not what the writer wrote")
                #expect(n >= last, "round \(round): went back from \(last) to \(n)")
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

    /// The number of the payload stored under "seq", or `nil` when there is none or it cannot be read.
    private static func sequenceNumber(in store: EncryptedFileStore) -> Int? {
        guard let value = try? store.data(forKey: "seq") else { return nil }
        return String(decoding: value.prefix(24), as: UTF8.self).split(separator: ":").first.flatMap { Int($0) }
    }
}
