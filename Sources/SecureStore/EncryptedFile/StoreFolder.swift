import Crypto

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The folder of an ``EncryptedFileStore``: file names per service, creation and modes.
enum StoreFolder {
    /// The file name for `service`: a readable part (at most 48 characters of `A-Z a-z 0-9 - _`, others
    /// replaced by `_`) and 32 hexadecimal digits of SHA-256 of the service, then `.store`.
    ///
    /// The name never contains `/` and is never `.` or `..`, whatever the service is.
    static func fileName(forService service: String) -> String {
        let readable = String(
            service.unicodeScalars.prefix(48).map { scalar -> Character in
                switch scalar {
                case "A"..."Z", "a"..."z", "0"..."9", "-", "_": Character(scalar)
                default: "_"
                }
            }
        )
        let digest = SHA256.hash(data: Data(utf8Of: service)).prefix(16)
        // Built by hand: `joined()` costs a protocol-conformance scan of the whole binary on its first use.
        var hex = ""
        let digits = Array("0123456789abcdef")
        for byte in digest {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0x0F)])
        }
        return readable + "." + hex + ".store"
    }

    /// `folder` as `URL(fileURLWithPath:).standardizedFileURL.path` gives it, the name of a folder's key in a keyring,
    /// without Foundation's URL machinery in the usual case (a fifth of a `sessionctl token` call's instructions): an
    /// absolute path with no empty, `.` or `..` component and no trailing slash is already standard. Any other path
    /// goes through `URL`.
    static func standardizedPath(_ folder: String) -> String {
        var isStandard = folder.utf8.first == UInt8(ascii: "/") && folder.utf8.count > 1
        var component = 0  // bytes of the component so far
        var dots = 0  // of which dots
        // Each component ends at a slash or at the end: it must be a name, not empty, `.` or `..`.
        for byte in folder.utf8.dropFirst() + [UInt8(ascii: "/")] where isStandard {
            if byte == UInt8(ascii: "/") {
                isStandard = component > 0 && !(component == dots && dots <= 2)
                (component, dots) = (0, 0)
            } else {
                component += 1
                if byte == UInt8(ascii: ".") { dots += 1 }
            }
        }
        return isStandard ? folder : URL(fileURLWithPath: folder).standardizedFileURL.path
    }

    /// Creates `folder` (and missing parents) with mode 0700, tightens it to 0700 if it is looser, and
    /// tightens an existing `dataFile` to 0600.
    static func prepare(_ folder: String, dataFile: String) throws(SecureStoreError) {
        do {
            try createFolder(folder)
            let fd = try SystemCall.open(folder, O_RDONLY | O_DIRECTORY)
            defer { close(fd) }
            let info = try SystemCall.status(fd, path: folder)
            try requireOwnership(info, of: folder, what: "store folder")
            if info.st_mode & 0o077 != 0 {
                try SystemCall.setMode(fd, 0o700, path: folder)
            }
        } catch let error as SecureStoreError {
            throw error
        } catch let error as SystemCallError {
            throw SecureStoreError(error, while: "preparing the store folder")
        } catch {
            throw SecureStoreError(code: .ioFailure, message: "the store folder '\(folder)' cannot be prepared")
        }
        do {
            let fd = try SystemCall.open(dataFile, O_RDONLY | O_NOFOLLOW)
            defer { close(fd) }
            let info = try SystemCall.status(fd, path: dataFile)
            if info.st_mode & 0o077 != 0 {
                try SystemCall.setMode(fd, 0o600, path: dataFile)
            }
        } catch  where error.isNotFound {
            return
        } catch {
            throw SecureStoreError(error, while: "checking the store file")
        }
    }

    /// Refuses a folder or file that belongs to another user: its owner could read or replace what is kept
    /// there (tightening its mode would not help, and would fail).
    static func requireOwnership(_ info: stat, of path: String, what: String) throws(SecureStoreError) {
        let me = geteuid()
        guard info.st_uid != me else { return }
        throw SecureStoreError(
            code: .permissionDenied,
            message: "the \(what) '\(path)' belongs to user \(info.st_uid), not to you (user \(me)); "
                + "use a folder of your own, or have its owner remove it"
        )
    }

    /// Creates `folder` and its missing parents, each with mode 0700 (set with `fchmod` for new ones).
    private static func createFolder(_ folder: String) throws(SystemCallError) {
        if mkdir(folder, 0o700) == 0 {
            let fd = try SystemCall.open(folder, O_RDONLY | O_DIRECTORY)
            defer { close(fd) }
            try SystemCall.setMode(fd, 0o700, path: folder)
            return
        }
        let code = SystemCall.currentErrno()
        switch code {
        case EEXIST:
            return
        case ENOENT:
            let parent = AtomicFile.folder(of: folder)
            guard parent != folder, parent != "/", parent != "." else {
                throw SystemCallError(call: "mkdir", path: folder, errno: code)
            }
            try createFolder(parent)
            try createFolder(folder)
        default:
            throw SystemCallError(call: "mkdir", path: folder, errno: code)
        }
    }
}
