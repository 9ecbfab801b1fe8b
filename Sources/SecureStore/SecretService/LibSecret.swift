#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// libsecret and the GLib functions it needs, loaded at run time with `dlopen`.
///
/// Loading at run time (rather than through a system-library target) means the package builds on any
/// machine, with or without libsecret's development files, and the default build uses the keyring
/// wherever `libsecret-1.so.0` exists when the program runs. Only non-variadic functions are bound:
/// Swift cannot call C varargs through a function pointer.
///
/// Every GLib object is an opaque raw pointer here; ownership rules are those of the C API and are
/// followed in ``SecretServiceClient``.
final class LibSecret: @unchecked Sendable {  // immutable after init: dlopen handles and C function pointers
    typealias Pointer = UnsafeMutableRawPointer
    typealias ErrorOut = UnsafeMutablePointer<Pointer?>
    typealias CString = UnsafePointer<CChar>

    let passwordStore: @convention(c) (Pointer, Pointer, CString?, CString, CString, Pointer?, ErrorOut) -> Int32
    let passwordLookup: @convention(c) (Pointer, Pointer, Pointer?, ErrorOut) -> UnsafeMutablePointer<CChar>?
    let passwordClear: @convention(c) (Pointer, Pointer, Pointer?, ErrorOut) -> Int32
    let passwordSearch: @convention(c) (Pointer, Pointer, Int32, Pointer?, ErrorOut) -> Pointer?
    let passwordFree: @convention(c) (UnsafeMutablePointer<CChar>?) -> Void
    let retrievableAttributes: @convention(c) (Pointer) -> Pointer?
    let serviceGet: @convention(c) (Int32, Pointer?, ErrorOut) -> Pointer?
    let collectionForAlias: @convention(c) (Pointer?, CString, Int32, Pointer?, ErrorOut) -> Pointer?
    let collectionLocked: @convention(c) (Pointer) -> Int32

    let hashTableNew: @convention(c) (Pointer, Pointer) -> Pointer
    let hashTableInsert: @convention(c) (Pointer, Pointer?, Pointer?) -> Int32
    let hashTableLookup: @convention(c) (Pointer, Pointer?) -> Pointer?
    let hashTableUnref: @convention(c) (Pointer) -> Void
    let strHash: Pointer
    let strEqual: Pointer
    let errorFree: @convention(c) (Pointer) -> Void
    let quarkToString: @convention(c) (UInt32) -> CString?
    let listFreeFull: @convention(c) (Pointer?, Pointer) -> Void
    let objectRef: @convention(c) (Pointer) -> Pointer
    let objectUnrefPointer: Pointer
    let objectUnref: @convention(c) (Pointer) -> Void
    let cancellableNew: @convention(c) () -> Pointer
    let cancellableCancel: @convention(c) (Pointer) -> Void

    /// The schema every SessionKit item uses (see ``SecretSchemaLayout``).
    let schema: Pointer

    /// The library, or why it cannot be used; loaded once per process.
    static let shared: Result<LibSecret, LoadFailure> = Result { () throws(LoadFailure) in try LibSecret() }

    /// Why libsecret could not be loaded.
    struct LoadFailure: Error, CustomStringConvertible {
        let description: String
    }

    private init() throws(LoadFailure) {
        let secret = try Self.open("libsecret-1.so.0")
        let glib = try Self.open("libglib-2.0.so.0")
        let gobject = try Self.open("libgobject-2.0.so.0")
        let gio = try Self.open("libgio-2.0.so.0")
        passwordStore = try Self.symbol(secret, "secret_password_storev_sync")
        passwordLookup = try Self.symbol(secret, "secret_password_lookupv_sync")
        passwordClear = try Self.symbol(secret, "secret_password_clearv_sync")
        passwordSearch = try Self.symbol(secret, "secret_password_searchv_sync")
        passwordFree = try Self.symbol(secret, "secret_password_free")
        retrievableAttributes = try Self.symbol(secret, "secret_retrievable_get_attributes")
        serviceGet = try Self.symbol(secret, "secret_service_get_sync")
        collectionForAlias = try Self.symbol(secret, "secret_collection_for_alias_sync")
        collectionLocked = try Self.symbol(secret, "secret_collection_get_locked")
        hashTableNew = try Self.symbol(glib, "g_hash_table_new")
        hashTableInsert = try Self.symbol(glib, "g_hash_table_insert")
        hashTableLookup = try Self.symbol(glib, "g_hash_table_lookup")
        hashTableUnref = try Self.symbol(glib, "g_hash_table_unref")
        strHash = try Self.address(glib, "g_str_hash")
        strEqual = try Self.address(glib, "g_str_equal")
        errorFree = try Self.symbol(glib, "g_error_free")
        quarkToString = try Self.symbol(glib, "g_quark_to_string")
        listFreeFull = try Self.symbol(glib, "g_list_free_full")
        objectRef = try Self.symbol(gobject, "g_object_ref")
        objectUnrefPointer = try Self.address(gobject, "g_object_unref")
        objectUnref = unsafeBitCast(objectUnrefPointer, to: (@convention(c) (Pointer) -> Void).self)
        cancellableNew = try Self.symbol(gio, "g_cancellable_new")
        cancellableCancel = try Self.symbol(gio, "g_cancellable_cancel")
        schema = SecretSchemaLayout.make(
            name: SecretServiceStore.schemaName,
            attributes: SecretServiceStore.Attribute.allCases.map(\.rawValue)
        )
    }

    private static func open(_ name: String) throws(LoadFailure) -> Pointer {
        guard let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "unknown reason"
            throw LoadFailure(
                description: "\(name) cannot be loaded (\(reason)); install libsecret (Debian: libsecret-1-0)")
        }
        return handle
    }

    private static func address(_ handle: Pointer, _ name: String) throws(LoadFailure) -> Pointer {
        guard let address = dlsym(handle, name) else {
            throw LoadFailure(
                description:
                    "\(name) is missing from the installed libsecret or GLib; libsecret 0.19 or later is needed")
        }
        return address
    }

    private static func symbol<T>(_ handle: Pointer, _ name: String) throws(LoadFailure) -> T {
        unsafeBitCast(try address(handle, name), to: T.self)
    }
}
