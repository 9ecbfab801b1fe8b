import SecureStore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

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
    static func out(_ line: String) { writeAll(line + "\n", to: STDOUT_FILENO) }

    /// Writes `text` to standard output as it is (an answer to git, no newline added).
    static func outRaw(_ text: String) { writeAll(text, to: STDOUT_FILENO) }

    /// Writes one line to standard error.
    static func err(_ line: String) { writeAll(line + "\n", to: STDERR_FILENO) }

    /// Writes `text` to standard error without a newline (prompts, spinners).
    static func errRaw(_ text: String) { writeAll(text, to: STDERR_FILENO) }

    /// All of standard input, as UTF-8 text (invalid bytes replaced); what was read before an error is kept.
    static func readStandardInput() -> String {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
            if count > 0 {
                bytes += chunk[..<count]
            } else if count == 0 || errno != EINTR {
                break
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Writes all of `text` to `descriptor`, again after a partial write or an interruption. A reader that went
    /// away (a closed pipe) ends the write quietly: there is nobody left to tell.
    private static func writeAll(_ text: String, to descriptor: Int32) {
        var text = text
        text.withUTF8 { buffer in
            guard var next = buffer.baseAddress else { return }
            var left = buffer.count
            while left > 0 {
                let written = write(descriptor, next, left)
                if written > 0 {
                    next += written
                    left -= written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
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
