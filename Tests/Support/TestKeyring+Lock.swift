import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

extension TestKeyring {
    /// Locks the default collection, as a screen lock or `secret-tool lock` would.
    package static func lockDefaultCollection() throws {
        let bus = try SessionBus()
        let collection = try bus.defaultCollection()
        _ = try bus.call(
            "/org/freedesktop/secrets", "org.freedesktop.Secret.Service", "Lock", "([objectpath '\(collection)'],)")
    }

    /// Unlocks the default collection with the password from `SESSIONKIT_TEST_KEYRING_PASSWORD`, through
    /// GNOME Keyring's own interface, which needs no prompt.
    package static func unlockDefaultCollection() throws {
        guard let password = ProcessInfo.processInfo.environment["SESSIONKIT_TEST_KEYRING_PASSWORD"],
            password.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") })
        else {
            throw Missing(
                description:
                    "SESSIONKIT_TEST_KEYRING_PASSWORD is not set (or not [A-Za-z0-9-]); use scripts/with-keyring")
        }
        let bus = try SessionBus()
        let collection = try bus.defaultCollection()
        let opened = try bus.call(
            "/org/freedesktop/secrets", "org.freedesktop.Secret.Service", "OpenSession", "('plain', <''>)")
        let session = try SessionBus.objectPath(in: opened)
        // A byte array, not a b'' literal: GVariant bytestrings carry a trailing NUL the keyring would see.
        let bytes = password.utf8.map { "byte \($0)" }.joined(separator: ", ")
        _ = try bus.call(
            "/org/freedesktop/secrets", "org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface",
            "UnlockWithMasterPassword",
            "(objectpath '\(collection)', (objectpath '\(session)', @ay [], [\(bytes)], 'text/plain'))"
        )
        _ = try? bus.call(session, "org.freedesktop.Secret.Session", "Close", "()")
    }

    /// A few GDBus calls on the session bus, loaded with `dlopen` like the store's libsecret binding; the
    /// parameters are GVariant text, so no variadic C function is needed.
    private struct SessionBus {
        typealias Pointer = UnsafeMutableRawPointer
        let connection: Pointer
        let callSync:
            @convention(c) (
                Pointer, UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafePointer<CChar>,
                Pointer?, Pointer?, Int32, Int32, Pointer?, UnsafeMutablePointer<Pointer?>
            ) -> Pointer?
        let parse:
            @convention(c) (Pointer?, UnsafePointer<CChar>, Pointer?, Pointer?, UnsafeMutablePointer<Pointer?>) ->
                Pointer?
        let print: @convention(c) (Pointer, Int32) -> UnsafeMutablePointer<CChar>?
        let unref: @convention(c) (Pointer) -> Void
        let free: @convention(c) (Pointer?) -> Void

        init() throws {
            guard let gio = dlopen("libgio-2.0.so.0", RTLD_NOW | RTLD_LOCAL) else {
                throw Missing(description: "libgio-2.0.so.0 cannot be loaded")
            }
            func symbol<T>(_ name: String) throws -> T {
                guard let address = dlsym(gio, name) else { throw Missing(description: "\(name) is missing from GIO") }
                return unsafeBitCast(address, to: T.self)
            }
            let busGet: @convention(c) (Int32, Pointer?, UnsafeMutablePointer<Pointer?>) -> Pointer? = try symbol(
                "g_bus_get_sync")
            callSync = try symbol("g_dbus_connection_call_sync")
            parse = try symbol("g_variant_parse")
            print = try symbol("g_variant_print")
            unref = try symbol("g_variant_unref")
            free = try symbol("g_free")
            var error: Pointer?
            let sessionBus: Int32 = 2  // G_BUS_TYPE_SESSION
            guard let connection = busGet(sessionBus, nil, &error) else {
                throw Missing(description: "no D-Bus session bus")
            }
            self.connection = connection
        }

        /// Calls `method` with `parameters` (GVariant text) and returns the reply as GVariant text.
        func call(_ object: String, _ interface: String, _ method: String, _ parameters: String) throws -> String {
            var error: Pointer?
            guard let arguments = parse(nil, parameters, nil, nil, &error) else {
                throw Missing(description: "bad GVariant text for \(method)")
            }
            guard
                let reply = callSync(
                    connection, "org.freedesktop.secrets", object, interface, method, arguments, nil, 0, 5000, nil,
                    &error)
            else {
                let message = error.flatMap { $0.load(fromByteOffset: 8, as: UnsafePointer<CChar>?.self) }.map {
                    String(cString: $0)
                }
                throw Missing(description: "\(interface).\(method) failed: \(message ?? "unknown error")")
            }
            defer { unref(reply) }
            guard let text = print(reply, 1) else { return "" }
            defer { free(text) }
            return String(cString: text)
        }

        /// The object path of the default collection.
        func defaultCollection() throws -> String {
            try Self.objectPath(
                in: call("/org/freedesktop/secrets", "org.freedesktop.Secret.Service", "ReadAlias", "('default',)"))
        }

        /// The first object path in GVariant text such as `(objectpath '/org/freedesktop/secrets/session/1',)`.
        static func objectPath(in text: String) throws -> String {
            guard let start = text.range(of: "objectpath '"),
                let end = text[start.upperBound...].firstIndex(of: "'")
            else { throw Missing(description: "no object path in the reply \(text)") }
            return String(text[start.upperBound..<end])
        }
    }
}
