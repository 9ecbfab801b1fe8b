#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The Linux kernel's key retention service (keyrings(7)), through libkeyutils loaded at run time with `dlopen`:
/// secrets kept in kernel memory, never on disk, by the user's keyring (`@u`), with optional timeouts.
///
/// What that means, plainly: a key here survives between processes of the same user, but not a reboot, and not
/// the moment the user has no process left (a logged-in session or a lingering systemd user manager keeps it).
/// Processes of the same user can read it (the key is made readable to the user, as a keyring item is to the
/// user's desktop session). In a container whose seccomp profile blocks `keyctl` (Docker's default), it is not
/// available at all.
package final class KernelKeyring: @unchecked Sendable {  // immutable after init: C function pointers from dlsym
    private typealias AddKey =
        @convention(c) (UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafeRawPointer?, Int, Int32) -> Int32
    private typealias Search = @convention(c) (Int32, UnsafePointer<CChar>, UnsafePointer<CChar>, Int32) -> Int
    private typealias ReadAlloc = @convention(c) (Int32, UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> Int
    private typealias SetTimeout = @convention(c) (Int32, UInt32) -> Int
    private typealias SetPermissions = @convention(c) (Int32, UInt32) -> Int
    private typealias Unlink = @convention(c) (Int32, Int32) -> Int

    /// The user's keyring, `@u` (`KEY_SPEC_USER_KEYRING`).
    private static let userKeyring: Int32 = -4
    /// Possessor and user: view, read, write, search, link, set attributes (`KEY_POS_ALL | KEY_USR_ALL`).
    private static let permissions: UInt32 = 0x3f3f_0000

    private let addKey: AddKey
    private let search: Search
    private let readAlloc: ReadAlloc
    private let setTimeout: SetTimeout
    private let setPermissions: SetPermissions
    private let unlink: Unlink

    /// libkeyutils, loaded once per process; the error says why it cannot be used.
    package static let shared: Result<KernelKeyring, SecureStoreError> = Result { () throws(SecureStoreError) in
        try KernelKeyring()
    }

    private init() throws(SecureStoreError) {
        guard let handle = dlopen("libkeyutils.so.1", RTLD_NOW | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "unknown reason"
            throw SecureStoreError(
                code: .unavailable,
                message: "the kernel keyring cannot be used: libkeyutils.so.1 cannot be loaded (\(reason)); install "
                    + "it (Debian: libkeyutils1) or choose another store")
        }
        func symbol<T>(_ name: String) throws(SecureStoreError) -> T {
            guard let address = dlsym(handle, name) else {
                throw SecureStoreError(
                    code: .unavailable, message: "\(name) is missing from libkeyutils; keyutils 1.5 or later is needed")
            }
            return unsafeBitCast(address, to: T.self)
        }
        addKey = try symbol("add_key")
        search = try symbol("keyctl_search")
        readAlloc = try symbol("keyctl_read_alloc")
        setTimeout = try symbol("keyctl_set_timeout")
        setPermissions = try symbol("keyctl_setperm")
        unlink = try symbol("keyctl_unlink")
    }

    /// The payload of the `user` key `description` in the user's keyring; `nil` when there is none (or it expired).
    package func read(_ description: String) throws(SecureStoreError) -> Data? {
        let id = search(Self.userKeyring, "user", description, 0)
        guard id >= 0 else {
            let code = errno
            if [ENOKEY, EKEYEXPIRED, EKEYREVOKED].contains(code) { return nil }
            throw Self.failure(code, "looking up '\(description)'")
        }
        var buffer: UnsafeMutableRawPointer?
        let length = readAlloc(Int32(id), &buffer)
        guard length >= 0, let buffer else {
            let code = errno
            if [ENOKEY, EKEYEXPIRED, EKEYREVOKED].contains(code) { return nil }
            throw Self.failure(code, "reading '\(description)'")
        }
        defer {
            memset(buffer, 0, length)
            free(buffer)
        }
        return Data(bytes: buffer, count: length)
    }

    /// Puts `payload` under `description` in the user's keyring (replacing one that is there), readable by the
    /// user's processes, gone after `timeout` seconds when one is given.
    package func write(_ description: String, _ payload: Data, timeout: UInt32? = nil) throws(SecureStoreError) {
        let id = payload.withUnsafeBytes { bytes in
            addKey("user", description, bytes.baseAddress, bytes.count, Self.userKeyring)
        }
        guard id >= 0 else { throw Self.failure(errno, "adding '\(description)'") }
        guard setPermissions(id, Self.permissions) >= 0 else { throw Self.failure(errno, "opening '\(description)'") }
        if let timeout, setTimeout(id, timeout) < 0 { throw Self.failure(errno, "timing out '\(description)'") }
    }

    /// Removes `description` from the user's keyring; removing a missing key is not an error.
    package func remove(_ description: String) throws(SecureStoreError) {
        let id = search(Self.userKeyring, "user", description, 0)
        guard id >= 0 else { return }
        _ = unlink(Int32(id), Self.userKeyring)
    }

    private static func failure(_ code: Int32, _ action: String) -> SecureStoreError {
        let reason = String(cString: strerror(code))
        switch code {
        case ENOSYS, EPERM:
            return SecureStoreError(
                code: .unavailable,
                message: "the kernel keyring is not available here (\(action): \(reason)); a container may block "
                    + "keyctl: choose another store")
        case EACCES:
            return SecureStoreError(code: .permissionDenied, message: "the kernel keyring refused \(action): \(reason)")
        case EDQUOT:
            return SecureStoreError(
                code: .unavailable,
                message: "the kernel keyring is full for this user (\(action): \(reason)); raise "
                    + "/proc/sys/kernel/keys/maxbytes or remove keys")
        default:
            return SecureStoreError(code: .unavailable, message: "the kernel keyring failed \(action): \(reason)")
        }
    }
}
