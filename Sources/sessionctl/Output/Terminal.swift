import Foundation
import SecureStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writing to the terminal: colour only on a terminal and never with `NO_COLOR`; errors on one line.
enum Terminal {
    /// Whether standard output is a terminal.
    static var stdoutIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }
    /// Whether standard error is a terminal.
    static var stderrIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }
    /// Whether standard input is a terminal.
    static var stdinIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }

    private static var colour: Bool {
        stdoutIsTerminal && Environment.value("NO_COLOR") == nil
    }

    /// `text` in bold green on a colour terminal.
    static func good(_ text: String) -> String { colour ? "\u{1B}[1;32m\(text)\u{1B}[0m" : text }
    /// `text` in bold yellow on a colour terminal.
    static func warn(_ text: String) -> String { colour ? "\u{1B}[1;33m\(text)\u{1B}[0m" : text }
    /// `text` dimmed on a colour terminal.
    static func dim(_ text: String) -> String { colour ? "\u{1B}[2m\(text)\u{1B}[0m" : text }
    /// `text` in bold on a colour terminal.
    static func bold(_ text: String) -> String { colour ? "\u{1B}[1m\(text)\u{1B}[0m" : text }

    /// Writes one line to standard output.
    static func out(_ line: String) {
        FileHandle.standardOutput.write(Data(utf8Of: line + "\n"))
    }

    /// Writes one line to standard error.
    static func err(_ line: String) {
        FileHandle.standardError.write(Data(utf8Of: line + "\n"))
    }

    /// Writes `text` to standard error without a newline (prompts, spinners).
    static func errRaw(_ text: String) {
        FileHandle.standardError.write(Data(utf8Of: text))
    }

    /// Reads one line from standard input; on a terminal, with echo off (for passwords).
    static func readSecretLine(prompt: String) -> String? {
        guard stdinIsTerminal else { return readLine(strippingNewline: true) }
        errRaw(prompt)
        var original = termios()
        tcgetattr(STDIN_FILENO, &original)
        var silent = original
        silent.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(STDIN_FILENO, TCSANOW, &silent)
        defer {
            tcsetattr(STDIN_FILENO, TCSANOW, &original)
            errRaw("\n")
        }
        return readLine(strippingNewline: true)
    }

    /// A local date and time with the time left, such as `2026-11-21 21:04:05 UTC (in 59 min)`.
    static func describe(expiry: Date?, now: Date) -> String {
        guard let expiry else { return "no expiry given by the provider" }
        let seconds = Int(expiry.timeIntervalSince(now))
        let left =
            seconds >= 0
            ? "in \(duration(seconds))" : "expired \(duration(-seconds)) ago"
        return "\(expiry.formatted(.iso8601)) (\(left))"
    }

    private static func duration(_ seconds: Int) -> String {
        switch seconds {
        case ..<120: "\(seconds) s"
        case ..<7200: "\(seconds / 60) min"
        case ..<172_800: "\(seconds / 3600) h"
        default: "\(seconds / 86_400) days"
        }
    }
}
