import CKernelKeyring

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

/// The Linux kernel's key retention service (keyrings(7)), through its system calls (`add_key`, `keyctl`): secrets
/// kept in kernel memory, never on disk, by the user's keyring (`@u`), with optional timeouts.
///
/// What that means, plainly: a key here survives between processes of the same user, but not a reboot, and not
/// the moment the user has no process left (a logged-in session or a lingering systemd user manager keeps it).
/// Processes of the same user can read it (the key is made readable to the user, as a keyring item is to the
/// user's desktop session). In a container whose seccomp profile denies `keyctl` and `add_key` (Docker's default),
/// it is not available at all: every call then fails with `EPERM` (or `ENOSYS`), reported as
/// ``SecureStoreError/Code/unavailable`` with what to do (`scripts/deny-keyctl.py` runs a program that way).
///
/// A process whose session keyring does not link the user's keyring (a systemd service, whose `KeyringMode` is
/// `private` by default; `keyctl session -`; a container's init) does not possess the keys in it, and the kernel
/// refuses it the key it just made. Then the user's keyring is linked into the session keyring, as a login session
/// has it (`keyctl link @u @s`, which keyrings(7) documents), and the call is made again: the link lasts as long as
/// that session keyring and gives the process nothing its user does not already own.
///
/// The system calls are made directly (CKernelKeyring), not through libkeyutils: no library to install, and none
/// to load with `dlopen` on every `sessionctl token` (about 0.1 ms of its 2.5; see `Benchmarks/cli.sh`).
package struct KernelKeyring: Sendable {
    /// The user's keyring, `@u` (`KEY_SPEC_USER_KEYRING`).
    private static let userKeyring: Int32 = -4
    /// The process's session keyring, `@s` (`KEY_SPEC_SESSION_KEYRING`).
    private static let sessionKeyring: Int32 = -3
    /// Possessor and user: view, read, write, search, link, set attributes (`KEY_POS_ALL | KEY_USR_ALL`).
    private static let permissions: UInt32 = 0x3f3f_0000
    /// The `errno` values that mean "no such key (any more)". Linux's own; elsewhere every call fails with `ENOSYS`.
    #if os(Linux)
        private static let keyGone: Set<Int32> = [ENOKEY, EKEYEXPIRED, EKEYREVOKED]
    #else
        private static let keyGone: Set<Int32> = []
    #endif

    /// The kernel keyring. It needs nothing loaded, so it is always there; whether the kernel lets this process use
    /// it shows in the first call.
    package static let shared: Result<KernelKeyring, SecureStoreError> = .success(KernelKeyring())

    private init() {}

    /// The payload of the `user` key `description` in the user's keyring; `nil` when there is none (or it expired).
    package func read(_ description: String) throws(SecureStoreError) -> Data? {
        try reachingUserKeyring { () throws(SecureStoreError) in try readOnce(description) }
    }

    /// Puts `payload` under `description` in the user's keyring (replacing one that is there), readable by the
    /// user's processes, gone after `timeout` seconds when one is given.
    package func write(_ description: String, _ payload: Data, timeout: UInt32? = nil) throws(SecureStoreError) {
        try reachingUserKeyring { () throws(SecureStoreError) in try writeOnce(description, payload, timeout: timeout) }
    }

    /// `body`, and once more after linking the user's keyring into the session keyring when the kernel refused it
    /// access (see the type's documentation).
    private func reachingUserKeyring<T>(_ body: () throws(SecureStoreError) -> T) throws(SecureStoreError) -> T {
        do {
            return try body()
        } catch  where error.code == .permissionDenied {
            guard sessionkit_keyctl_link(Self.userKeyring, Self.sessionKeyring) >= 0 else {
                let reason = String(cString: strerror(errno))
                throw SecureStoreError(
                    code: .permissionDenied,
                    message: "\(error.message); this process's session keyring does not link the user keyring, and "
                        + "linking it failed (\(reason)): run `keyctl link @u @s` first, or set KeyringMode=shared in "
                        + "the systemd unit")
            }
            return try body()
        }
    }

    private func readOnce(_ description: String) throws(SecureStoreError) -> Data? {
        let id = sessionkit_keyctl_search(Self.userKeyring, "user", description)
        guard id >= 0 else {
            let code = errno
            if Self.keyGone.contains(code) { return nil }
            throw Self.failure(code, "looking up '\(description)'")
        }
        // The payload's length, then the payload; again if it grew in between (another process replaced it).
        var capacity = 64
        while true {
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 1)
            defer {
                buffer.initializeMemory(as: UInt8.self, repeating: 0)  // the key leaves no copy behind
                buffer.deallocate()
            }
            let length = sessionkit_keyctl_read(Int32(id), buffer.baseAddress, buffer.count)
            guard length >= 0 else {
                let code = errno
                if Self.keyGone.contains(code) { return nil }
                throw Self.failure(code, "reading '\(description)'")
            }
            if length <= capacity { return Data(bytes: buffer.baseAddress!, count: length) }
            capacity = length
        }
    }

    private func writeOnce(_ description: String, _ payload: Data, timeout: UInt32?) throws(SecureStoreError) {
        let serial = payload.withUnsafeBytes { bytes in
            sessionkit_add_key("user", description, bytes.baseAddress, bytes.count, Self.userKeyring)
        }
        guard serial >= 0 else { throw Self.failure(errno, "adding '\(description)'") }
        let id = Int32(truncatingIfNeeded: serial)
        guard sessionkit_keyctl_setperm(id, Self.permissions) >= 0 else {
            throw Self.failure(errno, "opening '\(description)'")
        }
        if let timeout, sessionkit_keyctl_set_timeout(id, timeout) < 0 {
            throw Self.failure(errno, "timing out '\(description)'")
        }
    }

    /// Whether this process may make the kernel keyring's system calls: `false` where they are denied (a container's
    /// seccomp profile) or the kernel has no keyring. It asks the kernel for a key that does not exist.
    package var isUsable: Bool {
        guard sessionkit_keyctl_search(Self.userKeyring, "user", "sessionkit:usable") < 0 else { return true }
        let code = errno
        return code != EPERM && code != ENOSYS
    }

    /// Removes `description` from the user's keyring; removing a missing key is not an error.
    package func remove(_ description: String) throws(SecureStoreError) {
        let id = sessionkit_keyctl_search(Self.userKeyring, "user", description)
        guard id >= 0 else { return }
        _ = sessionkit_keyctl_unlink(Int32(truncatingIfNeeded: id), Self.userKeyring)
    }

    private static func failure(_ code: Int32, _ action: String) -> SecureStoreError {
        let reason = String(cString: strerror(code))
        switch code {
        case EPERM:
            // A seccomp filter's answer (Docker's default profile): keyctl(2) and add_key(2) give the calls made here
            // no other reason for EPERM.
            return SecureStoreError(
                code: .unavailable,
                message: "the kernel keyring's system calls are denied to this process (\(reason)), as a "
                    + "container's default seccomp profile does; use another store (sessionctl: --store file), or "
                    + "allow keyctl and add_key in the container's seccomp profile")
        case ENOSYS:
            return SecureStoreError(
                code: .unavailable,
                message: "the kernel keyring is not available here (\(action): \(reason)): the kernel has none, or "
                    + "a seccomp profile makes its system calls fail; use another store (sessionctl: --store file)")
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
