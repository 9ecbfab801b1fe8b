public import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// A fresh folder of its own (mode 0700, from `mkdtemp`) under the system's temporary folder, for one test.
///
/// ```swift
/// let folder = try TemporaryFolder()
/// defer { folder.remove() }
/// let store = try EncryptedFileStore(service: "s", configuration: .init(folder: folder.path))
/// ```
public struct TemporaryFolder: Sendable {
    /// The folder's path.
    public let path: String

    /// The folder as a file URL.
    public var url: URL { URL(fileURLWithPath: path, isDirectory: true) }

    /// Creates the folder, named `<prefix>-XXXXXX`.
    public init(prefix: String = "sessionkit-test") throws {
        let base = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("\(prefix)-XXXXXX")
        var template = Array(base.path.utf8CString)
        guard mkdtemp(&template) != nil else {
            throw CocoaError(.fileWriteUnknown, userInfo: ["reason": "mkdtemp failed with errno \(errno)"])
        }
        path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Removes the folder and everything in it.
    public func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Runs `body` with a new folder's path and removes the folder afterwards.
    public static func with<R>(_ body: (String) async throws -> R) async throws -> R {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        return try await body(folder.path)
    }

    /// The names of the files in `path`, sorted.
    public static func contents(_ path: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path).sorted()
    }
}
