import Foundation
import Testing

/// The Swift on the pages users read is code that compiles: every ```swift block of the README (and of the DocC
/// pages listed here) is the shown part of a file in `Snippets/`, which `swift build` compiles. A block edited on the
/// page alone, or a snippet changed without its page, fails here.
@Suite("Documentation: every Swift block is a compiled snippet")
struct DocumentationTests {
    /// The pages whose every Swift block must be a snippet.
    static let pages = ["README.md", "Sources/SessionKitBFF/SessionKitBFF.docc/SessionKitBFF.md"]

    /// The ```swift blocks of a Markdown page, each as its lines.
    static func swiftBlocks(in text: String) -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line.trimmingCharacters(in: .whitespaces) == "```swift" {
                current = []
            } else if current != nil, line.trimmingCharacters(in: .whitespaces) == "```" {
                blocks.append(normalized(current!.joined(separator: "\n")))
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    /// What a snippet file shows: without its opening comment (the comment lines before its first blank line) and
    /// its `// snippet.hide` ... `// snippet.show` parts, with the indentation common to its lines removed.
    static func shown(_ file: String) -> String {
        var all = file.split(separator: "\n", omittingEmptySubsequences: false)[...]
        while let first = all.first, first.hasPrefix("//") { all.removeFirst() }
        var lines: [Substring] = []
        var hidden = false
        for line in all {
            switch line.trimmingCharacters(in: .whitespaces) {
            case "// snippet.hide": hidden = true
            case "// snippet.show": hidden = false
            default: if !hidden { lines.append(line) }
            }
        }
        return normalized(lines.joined(separator: "\n"))
    }

    /// `text` without trailing spaces, the indentation its lines share, and blank lines at either end.
    static func normalized(_ text: String) -> String {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map {
            String($0.reversed().drop { $0 == " " }.reversed())
        }
        let indent = lines.filter { !$0.isEmpty }.map { $0.prefix { $0 == " " }.count }.min() ?? 0
        return lines.map { String($0.dropFirst(min(indent, $0.count))) }.joined(separator: "\n")
            .trimmingCharacters(in: .newlines)
    }

    static let root = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)

    static func snippets() throws -> [String: String] {
        let folder = root.appendingPathComponent("Snippets")
        var shownByName: [String: String] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name.hasSuffix(".swift") {
            shownByName[name] = shown(try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8))
        }
        return shownByName
    }

    @Test("every Swift block of the README and the listed DocC pages is the shown part of a snippet", arguments: pages)
    func blocksAreSnippets(_ page: String) throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent(page), encoding: .utf8)
        let snippets = try Self.snippets()
        let blocks = Self.swiftBlocks(in: text)
        #expect(!blocks.isEmpty, "\(page) has no Swift block: the test proves nothing")
        for block in blocks {
            if block.hasPrefix(Self.manifestMark) {
                try Self.checkManifest(block)
                continue
            }
            #expect(
                snippets.values.contains(block),
                "a Swift block of \(page) is no snippet's shown part; put it in Snippets/: \(block.prefix(200))")
        }
    }

    /// How a page marks a block that is part of a package manifest, not a program.
    static let manifestMark = "// Package.swift\n"

    /// Evaluates a manifest block inside a package of its own (`swift package dump-package`): its Swift is valid
    /// `PackageDescription`.
    static func checkManifest(_ block: String) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("manifest-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let manifest =
            "// swift-tools-version:6.2\nimport PackageDescription\nlet package = Package(\n    name: \"App\",\n"
            + block + "\n)\n"
        try manifest.write(to: folder.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["swift", "package", "--package-path", folder.path, "dump-package"]
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        process.waitUntilExit()
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0, "the manifest block does not evaluate: \(said)")
    }

    @Test("the parser: hidden parts, opening comments and shared indentation are not shown")
    func parser() {
        let file = """
            // What this is.

            // snippet.hide
            import Foo
            // snippet.show
                let a = 1
                // kept
                let b = 2
            // snippet.hide
            #endif
            """
        #expect(Self.shown(file) == "let a = 1\n// kept\nlet b = 2")
        #expect(Self.swiftBlocks(in: "x\n```swift\n  let a = 1\n```\n```sh\nls\n```\n") == ["let a = 1"])
    }
}
