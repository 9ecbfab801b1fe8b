#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Whether this process could reach a D-Bus session bus at all, decided the way GLib decides where the bus is
/// (`g_dbus_address_get_for_bus_sync`): `DBUS_SESSION_BUS_ADDRESS`; else the socket `bus` in the user's runtime
/// folder (`$XDG_RUNTIME_DIR`, or GLib's fallback, the cache folder); else autolaunching one, which GLib does only
/// under X11 (`$DISPLAY`).
///
/// On a headless machine none of these exist, and asking libsecret would load it and GLib (dlopen, most of a
/// `sessionctl token` call's time) only to hear "Cannot autolaunch D-Bus without X11 $DISPLAY". Checking first
/// gives the same answer for the price of a `stat`. Where GLib wants a socket owned by this user, anything at that
/// path is enough here: a doubtful case asks libsecret, so a reachable bus is never missed.
enum SessionBus {
    /// Why no session bus can be reached, or `nil` when one may be (libsecret then finds out).
    static func absenceReason(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty { return nil }
        if let display = environment["DISPLAY"], !display.isEmpty { return nil }
        let runtimeFolder = nonEmpty(environment["XDG_RUNTIME_DIR"]) ?? cacheFolder(environment)
        if let runtimeFolder, FileManager.default.fileExists(atPath: runtimeFolder + "/bus") { return nil }
        return "no D-Bus session bus: DBUS_SESSION_BUS_ADDRESS is not set, there is no "
            + "\(runtimeFolder.map { $0 + "/bus" } ?? "$XDG_RUNTIME_DIR/bus") and no X11 $DISPLAY to start one"
    }

    /// GLib's `g_get_user_cache_dir()`: `$XDG_CACHE_HOME`, else `$HOME/.cache`.
    private static func cacheFolder(_ environment: [String: String]) -> String? {
        nonEmpty(environment["XDG_CACHE_HOME"]) ?? nonEmpty(environment["HOME"]).map { $0 + "/.cache" }
    }

    private static func nonEmpty(_ value: String?) -> String? {
        guard let value, !value.isEmpty else { return nil }
        return value
    }
}
