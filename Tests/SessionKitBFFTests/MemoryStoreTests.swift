import AuthEmulator
import Foundation
import NIOHTTP1
import SessionKitTesting
import Testing

/// `sessionkit-bff --store memory`: the back end for front ends on a machine without PostgreSQL, one instance.
@Suite("sessionkit-bff without a database")
struct MemoryStoreTests {
    @Test("--store memory: sign in, /auth/me, the API through the back end, logout; no PostgreSQL anywhere")
    func withoutDatabase() async throws {
        try await LiveEmulator.with { emulator in
            let folder = try TemporaryFolder(prefix: "sessionkit-bff-memory")
            defer { folder.remove() }
            let keyFile = try ProcessInstance.keyFile(for: BFFPostgres.Deployment(), in: folder)
            let instance = try await ProcessInstance.startInMemory(emulator: emulator, keyFile: keyFile)
            let browser = CookieBrowser()
            do {
                #expect(try await browser.signIn(through: instance).status == 303)
                let me = try await browser.get(instance.at("/auth/me"))
                #expect(me.status == 200 && me.json["email"] as? String == AuthEmulator.User.aliceEmail)
                let api = try await browser.get(instance.at("/api/userinfo"), headers: [("X-CSRF", "1")])
                #expect(api.status == 200 && api.json["email"] as? String == AuthEmulator.User.aliceEmail)
                let ready = try await browser.get(instance.at("/ready"))
                #expect(ready.status == 200, "\(ready.text)")
                let logout = try await browser.send(
                    .POST, instance.at("/auth/logout"), headers: [("Origin", instance.urlString)])
                #expect(logout.status == 200)
                #expect(try await browser.get(instance.at("/auth/me")).status == 401)
            } catch {
                Issue.record(error)
            }
            await browser.shutdown()
            await instance.stop()
        }
    }

    @Test("Confined to one CPU (taskset), it runs one NIO event loop, not one per core of the machine")
    func eventLoopsFollowAffinity() async throws {
        guard ProcessInfo.processInfo.activeProcessorCount >= 2, FileManager.default.isExecutableFile(atPath: taskset)
        else {
            print("note: skipped, this needs two CPUs and \(taskset) (util-linux) to tell one loop from several")
            return
        }
        try await LiveEmulator.with { emulator in
            let folder = try TemporaryFolder(prefix: "sessionkit-bff-affinity")
            defer { folder.remove() }
            let keyFile = try ProcessInstance.keyFile(for: BFFPostgres.Deployment(), in: folder)
            let instance = try await ProcessInstance.startInMemory(
                emulator: emulator, keyFile: keyFile, prefix: [taskset, "-c", "0"])
            // It has answered, so the server, and with it NIO's shared group, is running.
            let threads = try FileManager.default.contentsOfDirectory(
                atPath: "/proc/\(instance.processIdentifier)/task")
            let loops = threads.filter { thread in
                let name = try? String(
                    contentsOfFile: "/proc/\(instance.processIdentifier)/task/\(thread)/comm", encoding: .utf8)
                return name?.hasPrefix("NIO-SGLTN-") ?? false
            }
            await instance.stop()
            #expect(loops.count == 1, "\(loops.count) event loop threads for one allowed CPU")
        }
    }

    private let taskset = "/usr/bin/taskset"
}
