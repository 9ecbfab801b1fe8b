import Foundation

/// Programs of this package that tests run as processes.
package enum BuiltProgram {
    /// The path of the built program `name`: next to the test bundle, else in `.build/debug`.
    ///
    /// - Throws: An error naming the folders looked in, when the program was not built.
    package static func path(_ name: String) throws -> String {
        var folders: [String] = []
        if let first = CommandLine.arguments.first {
            folders.append(URL(fileURLWithPath: first).deletingLastPathComponent().path)
        }
        folders.append(FileManager.default.currentDirectoryPath + "/.build/debug")
        for folder in folders where FileManager.default.isExecutableFile(atPath: folder + "/" + name) {
            return folder + "/" + name
        }
        throw NotBuilt(name: name, folders: folders)
    }

    /// A program that was not found where the build puts it.
    package struct NotBuilt: Error, CustomStringConvertible {
        /// The program's name.
        package let name: String
        /// Where it was looked for.
        package let folders: [String]
        /// What is missing and what to do.
        package var description: String {
            "\(name) was not built (looked in \(folders)); run swift build --build-tests"
        }
    }
}
