#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The absolute path of the running `sessionctl`, for the commands that write it into another tool's configuration
/// (`git-credential configure`, `kubeconfig`): git and kubectl then run this very program, whatever their `PATH`.
///
/// The path the shell found it by, when that is this program: `argv[0]` made absolute, or looked up in `PATH` when it
/// is a bare name. Symbolic links are kept, as gh keeps them, so that a package manager's stable link
/// (`/opt/homebrew/bin/sessionctl`) is written rather than the versioned file behind it, which the next upgrade
/// removes. Otherwise the file the system says is running (`/proc/self/exe`, `_NSGetExecutablePath`).
enum RunningProgram {
    /// The absolute path of this program, or `nil` when none can be found.
    static var path: String? {
        let running = systemPath
        if let found = pathFromArguments(CommandLine.arguments.first ?? ""),
            running.map({ sameFile(found, $0) }) ?? true
        {
            return found
        }
        return running
    }

    /// `argv0` as the shell found it, made absolute, if it names an executable file.
    static func pathFromArguments(_ argv0: String, path: String? = Environment.value("PATH")) -> String? {
        guard !argv0.isEmpty else { return nil }
        if argv0.contains("/") {
            let absolute = argv0.hasPrefix("/") ? argv0 : currentDirectory + "/" + argv0
            let clean = lexicallyNormalized(absolute)
            return access(clean, X_OK) == 0 ? clean : nil
        }
        for folder in (path ?? "").split(separator: ":", omittingEmptySubsequences: false) {
            let base = folder.isEmpty ? currentDirectory : String(folder)
            let candidate = lexicallyNormalized(
                (base.hasPrefix("/") ? base : currentDirectory + "/" + base) + "/" + argv0)
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    /// `path` without `.` and empty components, and each `..` taking the component before it away; links are not
    /// followed.
    static func lexicallyNormalized(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/") {
            switch part {
            case ".": continue
            case "..": _ = parts.popLast()
            default: parts.append(part)
            }
        }
        return "/" + parts.joined(separator: "/")
    }

    /// The current directory, `/` when it cannot be read.
    private static var currentDirectory: String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return "/" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether `first` and `second` are the same file (after symbolic links). Compared by canonical path rather than
    /// by `stat`'s device and inode: the static release build cannot see `struct stat`'s members beside
    /// FoundationEssentials (they are CoreFoundation's there), and `sessionctl` must not import CoreFoundation.
    private static func sameFile(_ first: String, _ second: String) -> Bool {
        guard let one = canonicalPath(first), let two = canonicalPath(second) else { return false }
        return one == two
    }

    /// `path` with every symbolic link, `.` and `..` resolved, or `nil` when it does not exist.
    private static func canonicalPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The running program's file as the system knows it.
    private static var systemPath: String? {
        #if os(Linux)
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
            guard count > 0 else { return nil }
            return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        #elseif canImport(Darwin)
            var size = UInt32(PATH_MAX) + 1
            var buffer = [CChar](repeating: 0, count: Int(size))
            guard _NSGetExecutablePath(&buffer, &size) == 0 else { return nil }
            let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return lexicallyNormalized(text)
        #else
            return nil
        #endif
    }
}
