import Foundation
import Testing

/// The Swift on the pages users read is code that compiles: every ```swift block of the README and of every DocC
/// article (`Sources/*/*.docc/*.md`, found on disk, so a new page is covered without being listed) is the shown part
/// of a file in `Snippets/`, or of a named slice of one, which `swift build` compiles. A block edited on the page
/// alone, or a snippet changed without its page, fails here.
@Suite("Documentation: every Swift block is a compiled snippet")
struct DocumentationTests {
    /// The pages whose every Swift block must be a snippet: the README and every page of every DocC catalogue.
    static let pages = ["README.md"] + doccPages()

    /// The `.md` files of every `Sources/<target>/<target>.docc` folder, relative to the package, sorted.
    static func doccPages() -> [String] {
        let files = FileManager.default
        let sources = root.appendingPathComponent("Sources")
        var pages: [String] = []
        for target in (try? files.contentsOfDirectory(atPath: sources.path)) ?? [] {
            let targetFolder = sources.appendingPathComponent(target)
            for catalogue in (try? files.contentsOfDirectory(atPath: targetFolder.path)) ?? []
            where catalogue.hasSuffix(".docc") {
                let folder = targetFolder.appendingPathComponent(catalogue)
                for page in (try? files.contentsOfDirectory(atPath: folder.path)) ?? [] where page.hasSuffix(".md") {
                    pages.append("Sources/\(target)/\(catalogue)/\(page)")
                }
            }
        }
        return pages.sorted()
    }

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

    /// What a snippet file shows, read as DocC's snippet parser reads it: first the whole, then each named slice.
    /// The whole is the file without its opening comment (the comment lines before its first blank line) and its
    /// `// snippet.hide` ... `// snippet.show` parts; a slice is the shown lines from `// snippet.NAME` to
    /// `// snippet.end` or the next slice. Each is returned with the indentation common to its lines removed.
    static func shownParts(_ file: String) -> [String] {
        var all = file.split(separator: "\n", omittingEmptySubsequences: false)[...]
        while let first = all.first, first.hasPrefix("//"), !first.hasPrefix(markerPrefix) { all.removeFirst() }
        var whole: [Substring] = []
        var slices: [[Substring]] = []
        var inSlice = false
        var hidden = false
        for line in all {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix(markerPrefix) else {
                if !hidden {
                    whole.append(line)
                    if inSlice { slices[slices.count - 1].append(line) }
                }
                continue
            }
            switch trimmed.dropFirst(markerPrefix.count).prefix(while: { !$0.isWhitespace }).lowercased() {
            case "hide": hidden = true
            case "show": hidden = false
            case "end": inSlice = false
            default:
                // DocC starts a slice only where the file is shown.
                if !hidden {
                    slices.append([])
                    inSlice = true
                }
            }
        }
        return ([whole] + slices).map { normalized($0.joined(separator: "\n")) }
    }

    /// How every snippet marker begins: `// snippet.hide`, `// snippet.show`, `// snippet.end`, `// snippet.NAME`.
    static let markerPrefix = "// snippet."

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

    /// What the files of `Snippets/` show, whole and by slice.
    static func snippets() throws -> Set<String> {
        let folder = root.appendingPathComponent("Snippets")
        var shown: Set<String> = []
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name.hasSuffix(".swift") {
            shown.formUnion(shownParts(try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)))
        }
        return shown
    }

    @Test("the pages are found on disk: the README, and the DocC catalogues' pages with their Swift blocks")
    func pagesAreFound() throws {
        #expect(Self.pages.first == "README.md")
        for page in [
            "README.md", "Sources/SessionKit/SessionKit.docc/GettingStarted.md",
            "Sources/SessionKitBFF/SessionKitBFF.docc/SessionKitBFF.md",
        ] {
            #expect(Self.pages.contains(page), "\(page) is not among the pages found: \(Self.pages)")
            let text = try String(contentsOf: Self.root.appendingPathComponent(page), encoding: .utf8)
            #expect(!Self.swiftBlocks(in: text).isEmpty, "\(page) has no Swift block: the test proves nothing for it")
        }
    }

    @Test("every Swift block of the README and the DocC pages is the shown part of a snippet", arguments: pages)
    func blocksAreSnippets(_ page: String) throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent(page), encoding: .utf8)
        let snippets = try Self.snippets()
        let blocks = Self.swiftBlocks(in: text)
        // A Swift fence the parser does not take (```Swift, ``` swift) would be a block nobody compiles.
        let fences = text.split(separator: "\n").filter {
            $0.lowercased().filter { !$0.isWhitespace }.hasPrefix("```swift")
        }
        #expect(fences.count == blocks.count, "\(page) has a Swift block not fenced as ```swift: \(fences)")
        for block in blocks {
            if block.hasPrefix(Self.manifestMark) {
                try Self.checkManifest(block)
                continue
            }
            #expect(
                snippets.contains(block),
                "a Swift block of \(page) is no snippet's shown part or slice; put it in Snippets/: \(block.prefix(200))"
            )
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

    @Test("the parser: hidden parts, opening comments and shared indentation are not shown; slices are")
    func parser() {
        let file = """
            // What this is.

            // snippet.hide
            import Foo
            // snippet.show
                let a = 1
                // kept
                // snippet.second
                let b = 2
                // snippet.hide
                let hidden = 3
                // snippet.show
                let c = 4
                // snippet.end
                let d = 5
            // snippet.hide
            #endif
            """
        #expect(
            Self.shownParts(file) == ["let a = 1\n// kept\nlet b = 2\nlet c = 4\nlet d = 5", "let b = 2\nlet c = 4"])
        #expect(Self.swiftBlocks(in: "x\n```swift\n  let a = 1\n```\n```sh\nls\n```\n") == ["let a = 1"])
    }
}
