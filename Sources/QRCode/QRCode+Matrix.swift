// Module placement: function patterns, codeword placement, masking and mask penalty scoring.

/// A square grid of modules under construction, with a record of which modules belong to function patterns.
struct QRMatrix {
    /// Side length in modules.
    let size: Int
    /// Version of the symbol, 1–40.
    let version: Int
    /// Module colors in row-major order; `true` is dark.
    var modules: [Bool]
    /// Whether each module is part of a function pattern (never masked, never holds data).
    var isFunction: [Bool]

    /// An all-light grid for `version`.
    init(version: Int) {
        self.version = version
        self.size = version * 4 + 17
        self.modules = Array(repeating: false, count: size * size)
        self.isFunction = Array(repeating: false, count: size * size)
    }

    /// Color of the module at column `x`, row `y`.
    func module(_ x: Int, _ y: Int) -> Bool {
        modules[y * size + x]
    }

    /// Sets a function module at column `x`, row `y`.
    mutating func setFunction(_ x: Int, _ y: Int, _ dark: Bool) {
        modules[y * size + x] = dark
        isFunction[y * size + x] = true
    }

    /// Draws finders, separators, timing and alignment patterns, version info, and reserves the format area.
    mutating func drawFunctionPatterns() {
        for index in 0..<size {
            setFunction(6, index, index % 2 == 0)
            setFunction(index, 6, index % 2 == 0)
        }
        drawFinderPattern(centerX: 3, centerY: 3)
        drawFinderPattern(centerX: size - 4, centerY: 3)
        drawFinderPattern(centerX: 3, centerY: size - 4)

        let positions = QRCode.alignmentPatternPositions(version: version)
        let last = positions.count - 1
        for (i, y) in positions.enumerated() {
            for (j, x) in positions.enumerated() {
                // Skip the three positions that overlap the finder patterns.
                if (i == 0 && j == 0) || (i == 0 && j == last) || (i == last && j == 0) { continue }
                drawAlignmentPattern(centerX: x, centerY: y)
            }
        }
        // Reserve the format areas (the real bits are drawn after masking) and draw the dark module.
        drawFormatBits(correction: .medium, mask: 0)
        drawVersionBits()
    }

    /// A 7 × 7 finder pattern plus its one-module light separator, clipped to the grid.
    private mutating func drawFinderPattern(centerX: Int, centerY: Int) {
        for dy in -4...4 {
            for dx in -4...4 {
                let x = centerX + dx
                let y = centerY + dy
                guard x >= 0, x < size, y >= 0, y < size else { continue }
                let distance = max(abs(dx), abs(dy))
                setFunction(x, y, distance != 2 && distance != 4)
            }
        }
    }

    /// A 5 × 5 alignment pattern.
    private mutating func drawAlignmentPattern(centerX: Int, centerY: Int) {
        for dy in -2...2 {
            for dx in -2...2 {
                setFunction(centerX + dx, centerY + dy, max(abs(dx), abs(dy)) != 1)
            }
        }
    }

    /// The 15-bit format information (BCH(15,5) code, XOR-masked with 101010000010010) for a level and mask.
    static func formatBits(correction: QRCode.ErrorCorrection, mask: Int) -> Int {
        let data = correction.formatBits << 3 | mask
        var remainder = data
        for _ in 0..<10 {
            remainder = (remainder << 1) ^ ((remainder >> 9) * 0x537)
        }
        return (data << 10 | remainder) ^ 0x5412
    }

    /// The 18-bit version information (BCH(18,6) code) for versions 7 and up.
    static func versionBits(version: Int) -> Int {
        var remainder = version
        for _ in 0..<12 {
            remainder = (remainder << 1) ^ ((remainder >> 11) * 0x1F25)
        }
        return version << 12 | remainder
    }

    /// Draws both copies of the format information and the dark module.
    mutating func drawFormatBits(correction: QRCode.ErrorCorrection, mask: Int) {
        let bits = QRMatrix.formatBits(correction: correction, mask: mask)
        func bit(_ index: Int) -> Bool { (bits >> index) & 1 == 1 }
        // Copy around the top-left finder.
        for index in 0...5 {
            setFunction(8, index, bit(index))
        }
        setFunction(8, 7, bit(6))
        setFunction(8, 8, bit(7))
        setFunction(7, 8, bit(8))
        for index in 9..<15 {
            setFunction(14 - index, 8, bit(index))
        }
        // Copy split between the top-right and bottom-left finders.
        for index in 0..<8 {
            setFunction(size - 1 - index, 8, bit(index))
        }
        for index in 8..<15 {
            setFunction(8, size - 15 + index, bit(index))
        }
        setFunction(8, size - 8, true)
    }

    /// Draws both copies of the version information (versions 7 and up only).
    private mutating func drawVersionBits() {
        guard version >= 7 else { return }
        let bits = QRMatrix.versionBits(version: version)
        for index in 0..<18 {
            let dark = (bits >> index) & 1 == 1
            let a = size - 11 + index % 3
            let b = index / 3
            setFunction(a, b, dark)
            setFunction(b, a, dark)
        }
    }

    /// Places codeword bits in the two-column zigzag from the bottom-right corner, skipping function modules.
    mutating func placeCodewords(_ codewords: [UInt8]) {
        let totalBits = codewords.count * 8
        var bitIndex = 0
        var right = size - 1
        while right >= 1 {
            if right == 6 { right = 5 }  // skip the vertical timing pattern
            let upward = (right + 1) & 2 == 0
            for vertical in 0..<size {
                let y = upward ? size - 1 - vertical : vertical
                for offset in 0..<2 {
                    let x = right - offset
                    guard !isFunction[y * size + x], bitIndex < totalBits else { continue }
                    modules[y * size + x] = (codewords[bitIndex >> 3] >> (7 - (bitIndex & 7))) & 1 == 1
                    bitIndex += 1
                }
            }
            right -= 2
        }
    }

    /// Whether mask pattern `mask` inverts the module at column `x`, row `y`.
    static func maskInverts(_ mask: Int, x: Int, y: Int) -> Bool {
        switch mask {
        case 0: (x + y) % 2 == 0
        case 1: y % 2 == 0
        case 2: x % 3 == 0
        case 3: (x + y) % 3 == 0
        case 4: (x / 3 + y / 2) % 2 == 0
        case 5: x * y % 2 + x * y % 3 == 0
        case 6: (x * y % 2 + x * y % 3) % 2 == 0
        default: ((x + y) % 2 + x * y % 3) % 2 == 0
        }
    }

    /// XORs mask pattern `mask` onto every non-function module; applying it twice undoes it.
    mutating func applyMask(_ mask: Int) {
        for y in 0..<size {
            for x in 0..<size where !isFunction[y * size + x] && QRMatrix.maskInverts(mask, x: x, y: y) {
                modules[y * size + x].toggle()
            }
        }
    }

    /// The mask (0–7) whose result, with its format information drawn, has the lowest penalty; ties go to the lower.
    func bestMask(correction: QRCode.ErrorCorrection) -> Int {
        var best = 0
        var bestPenalty = Int.max
        for mask in 0..<8 {
            var candidate = self
            candidate.applyMask(mask)
            candidate.drawFormatBits(correction: correction, mask: mask)
            let penalty = candidate.penaltyScore()
            if penalty < bestPenalty {
                best = mask
                bestPenalty = penalty
            }
        }
        return best
    }

    /// The penalty score of ISO/IEC 18004 section 7.8.3 (rules N1–N4).
    func penaltyScore() -> Int {
        var penalty = 0
        // N1 and N3, along every row and every column.
        for line in 0..<size {
            penalty += QRMatrix.linePenalty(modules, start: line * size, step: 1, count: size)
            penalty += QRMatrix.linePenalty(modules, start: line, step: size, count: size)
        }
        // N2: every 2 × 2 block of one color.
        for y in 0..<(size - 1) {
            for x in 0..<(size - 1) {
                let index = y * size + x
                let color = modules[index]
                if color == modules[index + 1] && color == modules[index + size] && color == modules[index + size + 1] {
                    penalty += 3
                }
            }
        }
        // N4: 10 points for each full 5 % that the dark share departs from 50 %.
        var dark = 0
        for module in modules where module {
            dark += 1
        }
        let total = size * size
        penalty += abs(dark * 20 - total * 10) / total * 10
        return penalty
    }

    /// N1 and N3 for one row or column: `count` modules from `start`, `step` apart.
    ///
    /// N1 scores 3 + (length − 5) for each run of five or more modules of one color. N3 scores 40 for each
    /// dark–light–dark–dark–dark–light–dark (1:1:3:1:1) pattern with four light modules before or after it;
    /// modules outside the symbol count as light.
    static func linePenalty(_ modules: [Bool], start: Int, step: Int, count: Int) -> Int {
        let lightBefore = 0b0000_1011101
        let lightAfter = 0b1011101_0000
        var penalty = 0
        var runLength = 0
        var previous = false
        // The last 11 modules seen, newest in the lowest bit, starting with four light modules of margin.
        var window = 0
        for position in 0..<(count + 4) {
            let dark = position < count && modules[start + position * step]
            window = (window << 1 | (dark ? 1 : 0)) & 0x7FF
            if window == lightBefore || window == lightAfter {
                penalty += 40
            }
            guard position < count else { continue }
            if position > 0 && dark == previous {
                runLength += 1
            } else {
                if runLength >= 5 { penalty += runLength - 2 }
                runLength = 1
                previous = dark
            }
        }
        if runLength >= 5 { penalty += runLength - 2 }
        return penalty
    }
}
