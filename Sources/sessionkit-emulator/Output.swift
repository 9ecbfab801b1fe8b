import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Lines for the person at the terminal: styled only on a terminal without `NO_COLOR`.
enum Output {
    private static let styled = isatty(STDOUT_FILENO) == 1 && getenv("NO_COLOR") == nil

    /// `text` in bold green when styled.
    static func good(_ text: String) -> String { styled ? "\u{1B}[1;32m\(text)\u{1B}[0m" : text }
    /// `text` in bold when styled.
    static func bold(_ text: String) -> String { styled ? "\u{1B}[1m\(text)\u{1B}[0m" : text }
    /// One line to standard output.
    static func out(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
    /// One line to standard error.
    static func err(_ line: String) { FileHandle.standardError.write(Data((line + "\n").utf8)) }
}
