import Foundation
import SessionKitTestSupport
import Testing

@testable import QRCode

// MARK: - Decoding with zbarimg

/// Absolute path of `zbarimg`, found on `PATH` or in the usual places.
private let zbarimgPath: String? = {
    let fromPath = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
    let candidates = fromPath + ["/usr/bin", "/usr/local/bin", "/opt/homebrew/bin"]
    return candidates.map { $0 + "/zbarimg" }.first { FileManager.default.isExecutableFile(atPath: $0) }
}()

private struct DecoderUnavailable: Error, CustomStringConvertible {
    var description: String {
        "zbarimg was not found on PATH; the QR decoder tests need it (apt-get install -y zbar-tools, brew install zbar)"
    }
}

private struct DecoderFailed: Error, CustomStringConvertible {
    let description: String
}

/// A binary PGM image of a module grid: `quietZone` light modules around it, each module `scale` × `scale` pixels.
private func pgm(size: Int, quietZone: Int = 4, scale: Int = 4, isDark: (Int, Int) -> Bool) -> Data {
    let pixels = (size + 2 * quietZone) * scale
    var image = Data("P5\n\(pixels) \(pixels)\n255\n".utf8)
    var row = [UInt8](repeating: 255, count: pixels)
    for y in -quietZone..<(size + quietZone) {
        for x in -quietZone..<(size + quietZone) {
            let dark = x >= 0 && y >= 0 && x < size && y < size && isDark(x, y)
            let start = (x + quietZone) * scale
            row.replaceSubrange(start..<start + scale, with: repeatElement(dark ? 0 : 255, count: scale))
        }
        for _ in 0..<scale {
            image.append(contentsOf: row)
        }
    }
    return image
}

/// Writes the grid to a temporary PGM file, runs `zbarimg` on it and returns the decoded payload bytes.
private func decode(size: Int, isDark: (Int, Int) -> Bool) throws -> [UInt8] {
    guard let zbarimg = zbarimgPath else { throw DecoderUnavailable() }
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("qr-\(UUID().uuidString).pgm")
    try pgm(size: size, isDark: isDark).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }

    // -Sbinary: print the payload bytes as they are, without zbar's character-set guessing.
    let process = try SpawnedProcess(
        path: zbarimg, arguments: ["--raw", "-q", "-Sbinary", file.path],
        environment: ProcessInfo.processInfo.environment)
    try process.standardInput.close()
    let data = process.standardOutput.readDataToEndOfFile()
    let errorText = String(decoding: process.standardError.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw DecoderFailed(
            description: "zbarimg found no readable QR code (exit status \(process.terminationStatus)) \(errorText)")
    }
    return Array(data)
}

private func decode(_ code: QRCode) throws -> [UInt8] {
    try decode(size: code.size) { code[$0, $1] }
}

/// Encodes with `make` and decodes the result with zbarimg on a thread of its own: a version-40 code's mask
/// search is seconds of CPU in a debug build, and zbarimg is a child process to wait for. On Swift's two
/// cooperative threads that starved every other test in the process.
private func encodedAndDecoded(_ make: @escaping @Sendable () throws -> QRCode) async throws -> (QRCode, [UInt8]) {
    try await onDedicatedThread {
        let code = try make()
        return (code, try decode(code))
    }
}

private let sampleTexts: [String] = [
    "A",
    "hello",
    "http://127.0.0.1:54321/activate?user_code=ABCD-EFGH",
    "https://login.example.com/device?user_code=WDJB-MJHT&client_id=cli-0f3c9a2e7b",
    "Café crème brûlée — naïve résumé",
    "日本語のテキスト、QRコード",
    "emoji 👍🏽 and mixed ascii 123",
    String(repeating: "The quick brown fox jumps over the lazy dog. ", count: 12),
]

// Serialized: one code is encoded and decoded at a time, so the suite never holds more than one thread.
@Suite("Decoded by zbarimg", .serialized)
struct DecoderTests {
    @Test("zbarimg is installed (required by the decoder tests)")
    func decoderIsInstalled() {
        #expect(zbarimgPath != nil, "zbarimg not found on PATH: install zbar-tools")
    }

    @Test("sample texts round-trip at every level", arguments: sampleTexts, QRCode.ErrorCorrection.allCases)
    func roundTrip(text: String, correction: QRCode.ErrorCorrection) async throws {
        let (_, decoded) = try await encodedAndDecoded { try QRCode(encoding: text, correction: correction) }
        #expect(decoded == Array(text.utf8))
    }

    @Test("a full payload forces the expected version", arguments: [1, 2, 5, 7, 10, 14, 20])
    func versionBoundaries(version: Int) async throws {
        let capacity = QRCode.maximumByteCount(version: version, correction: .medium)
        let text = String(String(repeating: "0123456789abcdefghijklmnopqrstuvwxyz", count: 100).prefix(capacity))
        let (code, decoded) = try await encodedAndDecoded { try QRCode(encoding: text, correction: .medium) }
        #expect(code.version == version)
        #expect(code.size == 17 + 4 * version)
        #expect(decoded == Array(text.utf8))

        let (oneMore, decodedMore) = try await encodedAndDecoded {
            try QRCode(encoding: text + "!", correction: .medium)
        }
        #expect(oneMore.version == version + 1)
        #expect(decodedMore == Array((text + "!").utf8))
    }

    @Test("every version and level decodes at full capacity", arguments: 1...40, QRCode.ErrorCorrection.allCases)
    func everyVersion(version: Int, correction: QRCode.ErrorCorrection) async throws {
        let capacity = QRCode.maximumByteCount(version: version, correction: correction)
        // Bytes of every value, including ones that are not valid UTF-8.
        let bytes = (0..<capacity).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ version) }
        let (code, decoded) = try await encodedAndDecoded {
            try QRCode(bytes: bytes, correction: correction, minimumVersion: version)
        }
        #expect(code.version == version)
        #expect(decoded == bytes)
    }

    @Test("every mask pattern decodes", arguments: 0..<8)
    func everyMask(mask: Int) async throws {
        let bytes = Array("http://127.0.0.1:54321/activate?user_code=ABCD-EFGH".utf8)
        for version in [1, 7] {
            let (code, decoded) = try await encodedAndDecoded {
                try QRCode(bytes: bytes, correction: .quartile, minimumVersion: version, forcedMask: mask)
            }
            #expect(code.mask == mask)
            #expect(decoded == bytes)
        }
    }

    @Test("the terminal drawing holds the same modules and decodes", arguments: [false, true])
    func terminalRendering(invert: Bool) async throws {
        let text = "http://127.0.0.1:54321/activate?user_code=ABCD-EFGH"
        let code = try QRCode(encoding: text)
        let quietZone = 2
        let lines = code.terminalString(quietZone: quietZone, invert: invert).split(separator: "\n")
        let span = code.size + 2 * quietZone
        #expect(lines.count == (span + 1) / 2)
        // Unpack each character into its top and bottom module; a filled half is light unless inverted.
        var dark = [[Bool]](repeating: [Bool](repeating: false, count: span), count: lines.count * 2)
        for (row, line) in lines.enumerated() {
            let characters = Array(line)
            #expect(characters.count == span)
            for (column, character) in characters.enumerated() where column < span {
                let (top, bottom): (Bool, Bool) =
                    switch character {
                    case "█": (true, true)
                    case "▀": (true, false)
                    case "▄": (false, true)
                    default: (false, false)
                    }
                dark[row * 2][column] = top == invert
                dark[row * 2 + 1][column] = bottom == invert
            }
        }
        for y in 0..<span {
            for x in 0..<span {
                #expect(dark[y][x] == code[x - quietZone, y - quietZone], "module (\(x), \(y))")
            }
        }
        let grid = dark
        let decoded = try await onDedicatedThread { try decode(size: span) { grid[$1][$0] } }
        #expect(decoded == Array(text.utf8))
    }
}

// MARK: - Unit tests

@Suite("Encoder internals")
struct EncoderTests {
    @Test("Reed–Solomon: ISO/IEC 18004 annex example \"01234567\" at 1-M")
    func reedSolomonStandardExample() throws {
        let data = QRCode.dataCodewords(bytes: [], version: 1, correction: .medium)
        #expect(data.count == 16)
        // Numeric-mode data codewords from the standard's worked example.
        let example: [UInt8] = [
            0x10, 0x20, 0x0C, 0x56, 0x61, 0x80, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11,
        ]
        let ecc = ReedSolomon.remainder(of: example, divisor: ReedSolomon.generator(degree: 10))
        #expect(ecc == [0xA5, 0x24, 0xD4, 0xC1, 0xED, 0x36, 0xC7, 0x87, 0x2C, 0x55])
    }

    @Test("Reed–Solomon: 30 EC codewords of bytes 0...99 match python reedsolo")
    func reedSolomonReference() {
        let ecc = ReedSolomon.remainder(of: Array(0..<100), divisor: ReedSolomon.generator(degree: 30))
        let hex = ecc.map { String(format: "%02x", $0) }.joined()
        #expect(hex == "dc5670eb978c05f4ab21c08734138444c9dfe643b6260deaaad4a74f70f3")
    }

    @Test("GF(256) multiplication")
    func fieldMultiplication() {
        #expect(ReedSolomon.multiply(0x80, 0x02) == 0x1D)
        #expect(ReedSolomon.multiply(0x53, 0xCA) == 0x8F)
        #expect(ReedSolomon.multiply(0x00, 0xFF) == 0x00)
        #expect(ReedSolomon.multiply(0x01, 0xB7) == 0xB7)
    }

    @Test("byte-mode data codewords: header, terminator and pad bytes")
    func dataCodewords() {
        let codewords = QRCode.dataCodewords(bytes: Array("AB".utf8), version: 1, correction: .high)
        // 0100 00000010 01000001 01000010 0000, then 0xEC 0x11 … up to 9 codewords.
        #expect(codewords == [0x40, 0x24, 0x14, 0x20, 0xEC, 0x11, 0xEC, 0x11, 0xEC])
    }

    @Test(
        "format information matches the standard's table",
        arguments: [
            (QRCode.ErrorCorrection.low, 0, "111011111000100"), (.low, 5, "110001100011000"),
            (.low, 7, "110100101110110"), (.medium, 0, "101010000010010"), (.medium, 2, "101111001111100"),
            (.medium, 6, "100111110010111"), (.quartile, 1, "011000001101000"), (.quartile, 4, "010010010110100"),
            (.high, 3, "001100111010000"), (.high, 7, "000100000111011"),
        ])
    func formatInformation(correction: QRCode.ErrorCorrection, mask: Int, expected: String) {
        #expect(
            String(QRMatrix.formatBits(correction: correction, mask: mask), radix: 2).leftPadded(to: 15) == expected)
    }

    @Test("version information matches the standard's table")
    func versionInformation() {
        #expect(QRMatrix.versionBits(version: 7) == 0x07C94)
        #expect(QRMatrix.versionBits(version: 8) == 0x085BC)
        #expect(QRMatrix.versionBits(version: 20) == 0x149A6)
        #expect(QRMatrix.versionBits(version: 40) == 0x28C69)
    }

    @Test("capacities match the standard's byte-mode table")
    func capacities() {
        #expect(QRCode.maximumByteCount(version: 1, correction: .low) == 17)
        #expect(QRCode.maximumByteCount(version: 1, correction: .high) == 7)
        #expect(QRCode.maximumByteCount(version: 7, correction: .medium) == 122)
        #expect(QRCode.maximumByteCount(version: 10, correction: .medium) == 213)
        #expect(QRCode.maximumByteCount(version: 20, correction: .quartile) == 482)
        #expect(QRCode.maximumByteCount(version: 20, correction: .high) == 382)
        #expect(QRCode.maximumByteCount(version: 40, correction: .low) == 2953)
        #expect(QRCode.maximumByteCount(version: 40, correction: .high) == 1273)
        #expect(QRCode.maximumByteCount(version: 41, correction: .low) == 0)
    }

    @Test("alignment pattern positions")
    func alignmentPositions() {
        #expect(QRCode.alignmentPatternPositions(version: 1) == [])
        #expect(QRCode.alignmentPatternPositions(version: 2) == [6, 18])
        #expect(QRCode.alignmentPatternPositions(version: 7) == [6, 22, 38])
        #expect(QRCode.alignmentPatternPositions(version: 20) == [6, 34, 62, 90])
        #expect(QRCode.alignmentPatternPositions(version: 32) == [6, 34, 60, 86, 112, 138])
        #expect(QRCode.alignmentPatternPositions(version: 40) == [6, 30, 58, 86, 114, 142, 170])
    }

    @Test(
        "too-long input is a typed error that names the length and the maximum",
        arguments: QRCode.ErrorCorrection.allCases)
    func tooLong(correction: QRCode.ErrorCorrection) {
        let maximum = QRCode.maximumByteCount(version: 40, correction: correction)
        let text = String(repeating: "x", count: maximum + 1)
        #expect(throws: QRCode.EncodingError.dataTooLong(length: maximum + 1, maximum: maximum, correction: correction))
        {
            try QRCode(encoding: text, correction: correction)
        }
        do {
            _ = try QRCode(encoding: text, correction: correction)
        } catch {
            #expect(error.description.contains("\(maximum + 1) bytes"))
            #expect(error.description.contains("at most \(maximum) bytes"))
        }
        #expect((try? QRCode(encoding: String(text.dropLast()), correction: correction))?.version == 40)
    }

    @Test("smallest version is chosen, and the default level is M")
    func smallestVersion() throws {
        let code = try QRCode(encoding: "http://127.0.0.1:54321/activate?user_code=ABCD-EFGH")
        #expect(code.correction == .medium)
        #expect(code.version == 4)  // 52 bytes: version 3-M holds 42, version 4-M holds 62
        #expect(try QRCode(encoding: "").version == 1)
        #expect(code[-1, 0] == false && code[0, code.size] == false)
    }

    @Test("function patterns are in place")
    func functionPatterns() throws {
        let code = try QRCode(encoding: String(repeating: "a", count: 150), correction: .medium)  // version 8
        #expect(code.version == 8)
        let size = code.size
        for (cx, cy) in [(3, 3), (size - 4, 3), (3, size - 4)] {
            for dy in -4...4 {
                for dx in -4...4 where (0..<size).contains(cx + dx) && (0..<size).contains(cy + dy) {
                    let distance = max(abs(dx), abs(dy))
                    #expect(code[cx + dx, cy + dy] == (distance != 2 && distance != 4))
                }
            }
        }
        for index in 8..<(size - 8) {
            #expect(code[index, 6] == (index % 2 == 0))
            #expect(code[6, index] == (index % 2 == 0))
        }
        #expect(code[8, size - 8])  // dark module
    }
}

@Suite("Format and version information in the symbol")
struct InformationPlacementTests {
    @Test("both copies of the format information carry the level and mask", arguments: QRCode.ErrorCorrection.allCases)
    func formatInformationCopies(correction: QRCode.ErrorCorrection) throws {
        let code = try QRCode(encoding: "http://127.0.0.1:54321/activate?user_code=ABCD-EFGH", correction: correction)
        let size = code.size
        let expected = QRMatrix.formatBits(correction: correction, mask: code.mask)
        // Bit 14 (most significant) first, in the order of ISO/IEC 18004 figure 25.
        let firstCopy: [(Int, Int)] =
            (0...5).map { (8, $0) } + [(8, 7), (8, 8), (7, 8)] + (9..<15).map { (14 - $0, 8) }
        let secondCopy: [(Int, Int)] = (0..<8).map { (size - 1 - $0, 8) } + (8..<15).map { (8, size - 15 + $0) }
        for copy in [firstCopy, secondCopy] {
            var bits = 0
            for (index, (x, y)) in copy.enumerated() where code[x, y] {
                bits |= 1 << index
            }
            #expect(bits == expected)
        }
    }

    @Test("both copies of the version information are in place", arguments: [7, 8, 14, 20, 40])
    func versionInformationCopies(version: Int) throws {
        let bytes = [UInt8](repeating: 0x41, count: 10)
        let code = try QRCode(bytes: bytes, correction: .low, minimumVersion: version)
        let size = code.size
        var bottomLeft = 0
        var topRight = 0
        for index in 0..<18 {
            let a = size - 11 + index % 3
            let b = index / 3
            if code[b, a] { bottomLeft |= 1 << index }
            if code[a, b] { topRight |= 1 << index }
        }
        #expect(bottomLeft == QRMatrix.versionBits(version: version))
        #expect(topRight == QRMatrix.versionBits(version: version))
    }
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        String(repeating: "0", count: max(0, length - count)) + self
    }
}
