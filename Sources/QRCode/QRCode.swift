/// A QR code symbol (ISO/IEC 18004, Model 2) that encodes text in byte mode.
///
/// The encoder picks the smallest version (1–40) that holds the UTF-8 bytes of the text at the requested
/// error-correction level, adds Reed–Solomon error correction, interleaves the blocks, and chooses the mask with the
/// lowest penalty score, as the standard describes.
///
/// ```swift
/// let code = try QRCode(encoding: "http://127.0.0.1:54321/activate?user_code=ABCD-EFGH")
/// print(code.terminalString())
/// ```
public struct QRCode: Sendable {
    /// How much of the symbol may be damaged and still be read; higher levels make larger symbols.
    public enum ErrorCorrection: Sendable, CaseIterable, Hashable {
        /// Level L: about 7 % of the codewords can be restored.
        case low
        /// Level M: about 15 % of the codewords can be restored.
        case medium
        /// Level Q: about 25 % of the codewords can be restored.
        case quartile
        /// Level H: about 30 % of the codewords can be restored.
        case high

        /// Row index of this level in the block tables.
        var tableIndex: Int {
            switch self {
            case .low: 0
            case .medium: 1
            case .quartile: 2
            case .high: 3
            }
        }

        /// The two error-correction bits of the format information (L = 01, M = 00, Q = 11, H = 10).
        var formatBits: Int {
            switch self {
            case .low: 1
            case .medium: 0
            case .quartile: 3
            case .high: 2
            }
        }

        /// The one-letter name used by the standard.
        var letter: String {
            switch self {
            case .low: "L"
            case .medium: "M"
            case .quartile: "Q"
            case .high: "H"
            }
        }
    }

    /// Why a text could not be encoded.
    public enum EncodingError: Error, Sendable, Equatable, CustomStringConvertible {
        /// The UTF-8 form of the text is `length` bytes long, more than the `maximum` bytes that the largest
        /// symbol (version 40) holds at the `correction` level.
        case dataTooLong(length: Int, maximum: Int, correction: ErrorCorrection)

        /// A human-readable explanation that names the length and the maximum.
        public var description: String {
            switch self {
            case .dataTooLong(let length, let maximum, let correction):
                "Text is \(length) bytes long in UTF-8, but a QR code at error-correction level \(correction.letter) "
                    + "holds at most \(maximum) bytes."
            }
        }
    }

    /// The smallest version (1, 21 × 21 modules).
    public static let minimumVersion = 1
    /// The largest version (40, 177 × 177 modules).
    public static let maximumVersion = 40

    /// The version of this symbol, 1 through 40; the side length is `17 + 4 × version` modules.
    public let version: Int
    /// The error-correction level of this symbol.
    public let correction: ErrorCorrection
    /// The mask pattern (0–7) that was applied to the data modules.
    public let mask: Int
    /// The number of modules along each side, without any quiet zone.
    public var size: Int { version * 4 + 17 }

    /// Module colors in row-major order; `true` is dark.
    private let modules: [Bool]

    /// Encodes `text` as UTF-8 in byte mode, in the smallest symbol that fits at the given level.
    ///
    /// - Parameters:
    ///   - text: The text to encode, for example a URL.
    ///   - correction: The error-correction level; `.medium` by default.
    /// - Throws: `EncodingError.dataTooLong` when the text does not fit in a version 40 symbol.
    public init(encoding text: String, correction: ErrorCorrection = .medium) throws(EncodingError) {
        try self.init(bytes: Array(text.utf8), correction: correction)
    }

    /// Encodes raw bytes in byte mode; the version and mask can be pinned for testing.
    ///
    /// - Parameters:
    ///   - bytes: The payload.
    ///   - correction: The error-correction level.
    ///   - minimumVersion: The smallest version to consider.
    ///   - forcedMask: A mask to use instead of the one with the lowest penalty.
    init(
        bytes: [UInt8], correction: ErrorCorrection, minimumVersion: Int = QRCode.minimumVersion, forcedMask: Int? = nil
    ) throws(EncodingError) {
        let firstVersion = max(QRCode.minimumVersion, min(minimumVersion, QRCode.maximumVersion))
        guard
            let version = (firstVersion...QRCode.maximumVersion).first(where: {
                QRCode.maximumByteCount(version: $0, correction: correction) >= bytes.count
            })
        else {
            throw .dataTooLong(
                length: bytes.count,
                maximum: QRCode.maximumByteCount(version: QRCode.maximumVersion, correction: correction),
                correction: correction
            )
        }
        let dataCodewords = QRCode.dataCodewords(bytes: bytes, version: version, correction: correction)
        let allCodewords = QRCode.addErrorCorrectionAndInterleave(
            dataCodewords, version: version, correction: correction)
        var matrix = QRMatrix(version: version)
        matrix.drawFunctionPatterns()
        matrix.placeCodewords(allCodewords)
        let chosenMask = forcedMask.map { max(0, min($0, 7)) } ?? matrix.bestMask(correction: correction)
        matrix.applyMask(chosenMask)
        matrix.drawFormatBits(correction: correction, mask: chosenMask)
        self.version = version
        self.correction = correction
        self.mask = chosenMask
        self.modules = matrix.modules
    }

    /// Whether the module at column `x` and row `y` is dark; coordinates outside the symbol are light.
    ///
    /// - Parameters:
    ///   - x: Column, 0 at the left edge.
    ///   - y: Row, 0 at the top edge.
    public subscript(x: Int, y: Int) -> Bool {
        guard x >= 0, y >= 0, x < size, y < size else { return false }
        return modules[y * size + x]
    }

    /// The largest number of bytes that a symbol of `version` holds in byte mode at the `correction` level.
    ///
    /// - Parameters:
    ///   - version: A version from 1 through 40.
    ///   - correction: The error-correction level.
    /// - Returns: The capacity in bytes, or 0 for a version outside 1–40.
    public static func maximumByteCount(version: Int, correction: ErrorCorrection) -> Int {
        guard (minimumVersion...maximumVersion).contains(version) else { return 0 }
        let capacityBits = numberOfDataCodewords(version: version, correction: correction) * 8
        return (capacityBits - 4 - characterCountBits(version: version)) / 8
    }

    /// Length of the character count field in byte mode.
    static func characterCountBits(version: Int) -> Int {
        version <= 9 ? 8 : 16
    }

    /// Builds the data codewords: mode indicator, count, payload, terminator, bit padding and pad bytes.
    static func dataCodewords(bytes: [UInt8], version: Int, correction: ErrorCorrection) -> [UInt8] {
        let capacity = numberOfDataCodewords(version: version, correction: correction)
        var bits: [Bool] = []
        bits.reserveCapacity(capacity * 8)
        func append(_ value: Int, count: Int) {
            for shift in stride(from: count - 1, through: 0, by: -1) {
                bits.append((value >> shift) & 1 == 1)
            }
        }
        append(0b0100, count: 4)  // byte mode
        append(bytes.count, count: characterCountBits(version: version))
        for byte in bytes {
            append(Int(byte), count: 8)
        }
        append(0, count: min(4, capacity * 8 - bits.count))  // terminator
        append(0, count: (8 - bits.count % 8) % 8)
        var codewords: [UInt8] = []
        codewords.reserveCapacity(capacity)
        for start in stride(from: 0, to: bits.count, by: 8) {
            var byte: UInt8 = 0
            for bit in bits[start..<start + 8] {
                byte = byte << 1 | (bit ? 1 : 0)
            }
            codewords.append(byte)
        }
        var pad: UInt8 = 0xEC
        while codewords.count < capacity {
            codewords.append(pad)
            pad = pad == 0xEC ? 0x11 : 0xEC
        }
        return codewords
    }

    /// Splits the data into blocks, appends each block's Reed–Solomon codewords and interleaves the result.
    static func addErrorCorrectionAndInterleave(
        _ data: [UInt8], version: Int, correction: ErrorCorrection
    ) -> [UInt8] {
        let blockCount = errorCorrectionBlockCount(version: version, correction: correction)
        let eccLength = errorCorrectionCodewordsPerBlock(version: version, correction: correction)
        let rawCodewords = numberOfRawDataModules(version: version) / 8
        let shortBlockCount = blockCount - rawCodewords % blockCount
        let shortBlockDataLength = rawCodewords / blockCount - eccLength
        let divisor = ReedSolomon.generator(degree: eccLength)

        var dataBlocks: [[UInt8]] = []
        var eccBlocks: [[UInt8]] = []
        var offset = 0
        for index in 0..<blockCount {
            let length = shortBlockDataLength + (index < shortBlockCount ? 0 : 1)
            let block = Array(data[offset..<offset + length])
            offset += length
            dataBlocks.append(block)
            eccBlocks.append(ReedSolomon.remainder(of: block, divisor: divisor))
        }

        var result: [UInt8] = []
        result.reserveCapacity(rawCodewords)
        for column in 0..<(shortBlockDataLength + 1) {
            for block in dataBlocks where column < block.count {
                result.append(block[column])
            }
        }
        for column in 0..<eccLength {
            for block in eccBlocks {
                result.append(block[column])
            }
        }
        return result
    }
}
