// Rendering for text terminals with Unicode half blocks.

extension QRCode {
    /// Draws the symbol with Unicode half blocks (`▀`, `▄`, `█` and space), two module rows per text row, so that
    /// modules come out roughly square in a typical terminal font.
    ///
    /// A scanner needs dark modules on a light background. Most terminals draw light text on a dark background, so
    /// by default (`invert == false`) the *light* modules and the quiet zone are drawn as filled blocks (in the
    /// terminal's light foreground color) and the dark modules are left blank (the terminal's dark background).
    /// Pass `invert: true` on a terminal with dark text on a light background; then the dark modules are filled.
    ///
    /// The last text row has only its top half inside the quiet zone (the symbol plus quiet zone has an odd number
    /// of module rows); its bottom half is left blank.
    ///
    /// - Parameters:
    ///   - quietZone: Light modules of margin on each side; negative values count as 0. The standard asks for 4,
    ///     but most phone scanners read a code with 2 when the terminal around it is uniform.
    ///   - invert: `false` (default) fills the light modules, for light-on-dark terminals; `true` fills the dark
    ///     modules, for dark-on-light terminals.
    /// - Returns: The rows of the drawing joined by `"\n"`, without a trailing newline.
    public func terminalString(quietZone: Int = 2, invert: Bool = false) -> String {
        let margin = max(0, quietZone)
        let span = size + 2 * margin
        // Whether the module at quiet-zone-relative coordinates is drawn as a filled block.
        func filled(_ column: Int, _ row: Int) -> Bool {
            guard row < span else { return false }  // below the quiet zone: leave the terminal as it is
            return self[column - margin, row - margin] == invert
        }
        var lines: [String] = []
        lines.reserveCapacity((span + 1) / 2)
        for row in stride(from: 0, to: span, by: 2) {
            var line = ""
            line.reserveCapacity(span * 3)
            for column in 0..<span {
                switch (filled(column, row), filled(column, row + 1)) {
                case (true, true): line.append("█")
                case (true, false): line.append("▀")
                case (false, true): line.append("▄")
                case (false, false): line.append(" ")
                }
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }
}
