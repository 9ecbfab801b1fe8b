import Foundation
import SessionKitTesting
import Testing

@testable import SecureStore

@Suite("Where the session bus is: decided as GLib decides, before libsecret is loaded")
struct SessionBusTests {
    @Test("an address, a display or a bus socket in the runtime folder means: ask libsecret")
    func busMayExist() async throws {
        #expect(SessionBus.absenceReason(environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nowhere"]) == nil)
        #expect(SessionBus.absenceReason(environment: ["DISPLAY": ":0"]) == nil)
        try await TemporaryFolder.with { folder in
            // GLib wants a socket of ours there; anything there is enough to ask libsecret (never a false "no bus").
            #expect(FileManager.default.createFile(atPath: folder + "/bus", contents: nil))
            #expect(SessionBus.absenceReason(environment: ["XDG_RUNTIME_DIR": folder]) == nil)
            // GLib's fallback when XDG_RUNTIME_DIR is unset: the cache folder.
            #expect(SessionBus.absenceReason(environment: ["XDG_CACHE_HOME": folder]) == nil)
        }
    }

    @Test("none of them: the reason names each, and empty values count as unset")
    func noBus() async throws {
        try await TemporaryFolder.with { folder in
            let reason = try #require(
                SessionBus.absenceReason(environment: [
                    "XDG_RUNTIME_DIR": folder, "DBUS_SESSION_BUS_ADDRESS": "", "DISPLAY": "",
                ]))
            #expect(reason.contains("DBUS_SESSION_BUS_ADDRESS is not set"))
            #expect(reason.contains(folder + "/bus"))
            #expect(reason.contains("$DISPLAY"))
            #expect(SessionBus.absenceReason(environment: [:])?.contains("$XDG_RUNTIME_DIR/bus") == true)
        }
    }
}
