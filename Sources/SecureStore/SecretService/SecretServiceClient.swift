#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The synchronous libsecret calls the store makes, with GLib's memory rules handled: attribute tables
/// and `GError`s are freed, returned passwords are wiped with `secret_password_free`.
///
/// Each method blocks; ``TimeBoundCall`` runs them on a thread of their own.
struct SecretServiceClient {
    typealias Pointer = UnsafeMutableRawPointer

    let library: LibSecret
    let cancellable: Pointer

    /// Fails with `.locked` or `.noDefaultCollection` unless the default collection is there and
    /// unlocked. It never prompts: asking libsecret to unlock would wait for a password dialog.
    func requireUnlockedDefaultCollection() -> Result<Void, SecretServiceFailure> {
        var error: Pointer?
        let service = library.serviceGet(0, cancellable, &error)  // SECRET_SERVICE_NONE: no session opened yet
        if let failure = consume(error) { return .failure(failure) }
        guard let service else {
            return .failure(SecretServiceFailure(kind: .notReachable, message: "libsecret returned no Secret Service"))
        }
        defer { library.objectUnref(service) }
        let collection = library.collectionForAlias(service, "default", 0, cancellable, &error)
        if let failure = consume(error) { return .failure(failure) }
        guard let collection else {
            return .failure(
                SecretServiceFailure(kind: .noDefaultCollection, message: "the keyring has no default collection")
            )
        }
        defer { library.objectUnref(collection) }
        guard library.collectionLocked(collection) == 0 else {
            return .failure(SecretServiceFailure(kind: .locked, message: "the default keyring collection is locked"))
        }
        return .success(())
    }

    /// Stores `password` in the default collection under `attributes`, replacing an item with the same ones.
    func store(_ attributes: [String: String], label: String, password: String) -> Result<Void, SecretServiceFailure> {
        withAttributes(attributes) { table in
            var error: Pointer?
            let stored = library.passwordStore(library.schema, table, "default", label, password, cancellable, &error)
            if let failure = consume(error) { return .failure(failure) }
            guard stored != 0 else {
                return .failure(
                    SecretServiceFailure(kind: .other, message: "the Secret Service refused to store the item"))
            }
            return .success(())
        }
    }

    /// The password of the item with `attributes`, or `nil` when there is none.
    func lookup(_ attributes: [String: String]) -> Result<String?, SecretServiceFailure> {
        withAttributes(attributes) { table in
            var error: Pointer?
            let password = library.passwordLookup(library.schema, table, cancellable, &error)
            if let failure = consume(error) {
                library.passwordFree(password)
                return .failure(failure)
            }
            guard let password else { return .success(nil) }
            defer { library.passwordFree(password) }
            return .success(String(cString: password))
        }
    }

    /// Removes every item with `attributes`; removing nothing is not an error.
    func clear(_ attributes: [String: String]) -> Result<Void, SecretServiceFailure> {
        withAttributes(attributes) { table in
            var error: Pointer?
            _ = library.passwordClear(library.schema, table, cancellable, &error)
            if let failure = consume(error) { return .failure(failure) }
            return .success(())
        }
    }

    /// The value of attribute `name` of every item with `attributes` (locked ones too), unsorted.
    func search(_ attributes: [String: String], reading name: String) -> Result<[String], SecretServiceFailure> {
        withAttributes(attributes) { table in
            var error: Pointer?
            let searchAll: Int32 = 1 << 1  // SECRET_SEARCH_ALL; no unlocking, no loading of secrets
            let list = library.passwordSearch(library.schema, table, searchAll, cancellable, &error)
            if let failure = consume(error) { return .failure(failure) }
            defer { library.listFreeFull(list, library.objectUnrefPointer) }
            var values: [String] = []
            var node = list
            while let current = node {
                // GList: { gpointer data; GList *next; GList *prev; }
                if let item = current.load(as: Pointer?.self), let found = library.retrievableAttributes(item) {
                    let value = name.withCString {
                        library.hashTableLookup(found, UnsafeMutableRawPointer(mutating: $0))
                    }
                    if let value { values.append(String(cString: value.assumingMemoryBound(to: CChar.self))) }
                    library.hashTableUnref(found)
                }
                node = current.load(fromByteOffset: MemoryLayout<Pointer>.size, as: Pointer?.self)
            }
            return .success(values)
        }
    }

    /// Runs `body` with a `GHashTable` of `attributes` (copied C strings), freed afterwards.
    private func withAttributes<T>(_ attributes: [String: String], _ body: (Pointer) -> T) -> T {
        let table = library.hashTableNew(library.strHash, library.strEqual)
        var strings: [UnsafeMutablePointer<CChar>?] = []
        for (name, value) in attributes {
            let key = strdup(name)
            let copy = strdup(value)
            strings += [key, copy]
            _ = library.hashTableInsert(table, key, copy)
        }
        defer {
            library.hashTableUnref(table)
            for string in strings { free(string) }
        }
        return body(table)
    }

    /// Turns a set `GError` into a failure and frees it; `nil` when no error was set.
    private func consume(_ error: Pointer?) -> SecretServiceFailure? {
        guard let error else { return nil }
        defer { library.errorFree(error) }
        // GError: { GQuark domain (guint32); gint code; gchar *message; }
        let domainQuark = error.load(as: UInt32.self)
        let code = error.load(fromByteOffset: 4, as: Int32.self)
        let message = error.load(fromByteOffset: 8, as: UnsafePointer<CChar>?.self).map { String(cString: $0) }
        let domain = library.quarkToString(domainQuark).map { String(cString: $0) } ?? "unknown-domain"
        return SecretServiceFailure(domain: domain, code: code, message: message ?? "no message")
    }
}
