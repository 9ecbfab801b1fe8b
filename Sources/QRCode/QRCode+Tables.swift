// Capacity tables (ISO/IEC 18004:2015, table 9) and Reed–Solomon arithmetic over GF(2^8).

extension QRCode {
    /// Error-correction codewords per block, by level (L, M, Q, H) and version (index 0 unused).
    private static let eccCodewordsPerBlock: [[Int]] = [
        [
            -1, 7, 10, 15, 20, 26, 18, 20, 24, 30, 18, 20, 24, 26, 30, 22, 24, 28, 30, 28, 28, 28, 28, 30, 30, 26,
            28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30,
        ],
        [
            -1, 10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26, 26, 28, 28, 28, 28,
            28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28,
        ],
        [
            -1, 13, 22, 18, 26, 18, 24, 18, 22, 20, 24, 28, 26, 24, 20, 30, 24, 28, 28, 26, 30, 28, 30, 30, 30, 30,
            28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30,
        ],
        [
            -1, 17, 28, 22, 16, 22, 28, 26, 26, 24, 28, 24, 28, 22, 24, 24, 30, 28, 28, 26, 28, 30, 24, 30, 30, 30,
            30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30,
        ],
    ]

    /// Number of error-correction blocks, by level (L, M, Q, H) and version (index 0 unused).
    private static let eccBlockCounts: [[Int]] = [
        [
            -1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 4, 6, 6, 6, 6, 7, 8, 8, 9, 9, 10, 12, 12, 12, 13, 14, 15, 16,
            17, 18, 19, 19, 20, 21, 22, 24, 25,
        ],
        [
            -1, 1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16, 17, 17, 18, 20, 21, 23, 25, 26, 28,
            29, 31, 33, 35, 37, 38, 40, 43, 45, 47, 49,
        ],
        [
            -1, 1, 1, 2, 2, 4, 4, 6, 6, 8, 8, 8, 10, 12, 16, 12, 17, 16, 18, 21, 20, 23, 23, 25, 27, 29, 34, 34, 35,
            38, 40, 43, 45, 48, 51, 53, 56, 59, 62, 65, 68,
        ],
        [
            -1, 1, 1, 2, 4, 4, 4, 5, 6, 8, 8, 11, 11, 16, 16, 18, 16, 19, 21, 25, 25, 25, 34, 30, 32, 35, 37, 40, 42,
            45, 48, 51, 54, 57, 60, 63, 66, 70, 74, 77, 81,
        ],
    ]

    /// Error-correction codewords in each block of a symbol.
    static func errorCorrectionCodewordsPerBlock(version: Int, correction: ErrorCorrection) -> Int {
        eccCodewordsPerBlock[correction.tableIndex][version]
    }

    /// Number of Reed–Solomon blocks of a symbol.
    static func errorCorrectionBlockCount(version: Int, correction: ErrorCorrection) -> Int {
        eccBlockCounts[correction.tableIndex][version]
    }

    /// Modules left for codewords (data, EC and remainder bits) once all function patterns are drawn.
    static func numberOfRawDataModules(version: Int) -> Int {
        var result = (16 * version + 128) * version + 64
        if version >= 2 {
            let alignmentCount = version / 7 + 2
            result -= (25 * alignmentCount - 10) * alignmentCount - 55
            if version >= 7 {
                result -= 36
            }
        }
        return result
    }

    /// Data codewords (excluding error correction) that a symbol holds.
    static func numberOfDataCodewords(version: Int, correction: ErrorCorrection) -> Int {
        numberOfRawDataModules(version: version) / 8
            - errorCorrectionCodewordsPerBlock(version: version, correction: correction)
            * errorCorrectionBlockCount(version: version, correction: correction)
    }

    /// Centre coordinates of the alignment patterns along one axis (empty for version 1).
    static func alignmentPatternPositions(version: Int) -> [Int] {
        guard version >= 2 else { return [] }
        let count = version / 7 + 2
        let step = (version * 8 + count * 3 + 5) / (count * 4 - 4) * 2
        var positions: [Int] = []
        var position = version * 4 + 17 - 7
        for _ in 0..<(count - 1) {
            positions.insert(position, at: 0)
            position -= step
        }
        positions.insert(6, at: 0)
        return positions
    }
}

/// Reed–Solomon error correction over GF(2^8) with the QR field polynomial x^8 + x^4 + x^3 + x^2 + 1.
enum ReedSolomon {
    /// Product of two field elements.
    static func multiply(_ x: UInt8, _ y: UInt8) -> UInt8 {
        var z = 0
        for shift in stride(from: 7, through: 0, by: -1) {
            z = (z << 1) ^ ((z >> 7) * 0x11D)
            z ^= ((Int(y) >> shift) & 1) * Int(x)
        }
        return UInt8(truncatingIfNeeded: z)
    }

    /// Coefficients of the generator polynomial (x − α^0)(x − α^1)…(x − α^(degree−1)), highest power first, with
    /// the leading 1 left out.
    static func generator(degree: Int) -> [UInt8] {
        guard degree > 0 else { return [] }
        var result = [UInt8](repeating: 0, count: degree)
        result[degree - 1] = 1
        var root: UInt8 = 1
        for _ in 0..<degree {
            for index in 0..<degree {
                result[index] = multiply(result[index], root)
                if index + 1 < degree {
                    result[index] ^= result[index + 1]
                }
            }
            root = multiply(root, 0x02)
        }
        return result
    }

    /// The error-correction codewords: the remainder of data(x) · x^degree divided by the generator.
    static func remainder(of data: [UInt8], divisor: [UInt8]) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: divisor.count)
        guard !divisor.isEmpty else { return result }
        for byte in data {
            let factor = byte ^ result.removeFirst()
            result.append(0)
            for index in result.indices {
                result[index] ^= multiply(divisor[index], factor)
            }
        }
        return result
    }
}
