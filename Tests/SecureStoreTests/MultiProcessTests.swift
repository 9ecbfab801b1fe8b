import Foundation
import SecureStore
import SessionKitTestSupport
import SessionKitTesting
import Testing

@Suite("EncryptedFileStore: several processes")
struct MultiProcessTests {
    @Test("child processes updating their own keys and one shared counter lose nothing")
    func concurrentProcesses() async throws {
        let tool = try ChildProcess.toolPath()
        try await TemporaryFolder.with { folder in
            let processes = 4
            let steps = 25
            // The children race to create the key file too.
            let children = try (0..<processes).map { index in
                try ChildProcess.spawn(
                    tool, [folder, "shared", "increment-loop", String(steps), "p\(index)", "counter"])
            }
            let terminations = try await onDedicatedThread { children.map { $0.wait() } }
            for termination in terminations {
                #expect(termination == .exited(0))
            }
            let store = try makeFileStore(folder, service: "shared")
            #expect(try store.string(forKey: "counter") == String(processes * steps))
            let keys = try store.keys()
            #expect(keys.count == processes * steps + 1)
            for index in 0..<processes {
                for step in 0..<steps {
                    #expect(try store.string(forKey: "p\(index)-\(step)") == String(step))
                }
            }
            #expect(try TemporaryFolder.contents(folder).filter { $0.contains(".tmp-") } == [])
        }
    }
}
