import SecureStore
import SessionKit

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

    /// The escape sequences this type writes for colour, the only ones ``sanitized(_:)`` lets through.
    enum Style: String, CaseIterable {
        case good = "\u{1B}[1;32m"
        case warn = "\u{1B}[1;33m"
        case dim = "\u{1B}[2m"
        case bold = "\u{1B}[1m"
        case reset = "\u{1B}[0m"
    }

    private static func styled(_ text: String, _ style: Style) -> String {
        colour ? style.rawValue + text + Style.reset.rawValue : text
    }

    /// `text` in bold green on a colour terminal.
    static func good(_ text: String) -> String { styled(text, .good) }
    /// `text` in bold yellow on a colour terminal.
    static func warn(_ text: String) -> String { styled(text, .warn) }
    /// `text` dimmed on a colour terminal.
    static func dim(_ text: String) -> String { styled(text, .dim) }
    /// `text` in bold on a colour terminal.
    static func bold(_ text: String) -> String { styled(text, .bold) }

    /// Writes one line to standard output; on a terminal, ``sanitized(_:)`` (into a pipe or a file it is data, such
    /// as a token or a metadata value, and goes as it is).
    static func out(_ line: String) { writeAll((stdoutIsTerminal ? sanitized(line) : line) + "\n", to: STDOUT_FILENO) }

    /// Writes `text` to standard output as it is (an answer to git, no newline added).
    static func outRaw(_ text: String) { writeAll(text, to: STDOUT_FILENO) }

    /// Writes one line to standard error, ``sanitized(_:)``: it is for a person, and may quote a provider.
    static func err(_ line: String) { writeAll(sanitized(line) + "\n", to: STDERR_FILENO) }

    /// Writes `text` to standard error without a newline (prompts, spinners): the command's own text only, as it is.
    static func errRaw(_ text: String) { writeAll(text, to: STDERR_FILENO) }

    /// `text` as it may reach a terminal: every control character a terminal acts on (escape sequences, carriage
    /// returns, C1 controls, bidi overrides) taken out, a tab or page break made a space, but the line feed and this
    /// type's own ``Style`` sequences kept. SessionKit already takes controls out of what a provider says; this is
    /// the second line, for every text that reaches the terminal (claims, file contents, git's requests).
    static func sanitized(_ text: String) -> String {
        // One call into SessionKit for the whole text, not one per character: every printed token passes here.
        guard text.hasTerminalControlsBesidesLineFeeds else { return text }
        let scalars = text.unicodeScalars
        var kept = String.UnicodeScalarView()
        var index = scalars.startIndex
        scanning: while index < scalars.endIndex {
            let scalar = scalars[index]
            if scalar == "\u{1B}" {
                for style in Style.allCases where scalars[index...].starts(with: style.rawValue.unicodeScalars) {
                    kept.append(contentsOf: style.rawValue.unicodeScalars)
                    index = scalars.index(index, offsetBy: style.rawValue.unicodeScalars.count)
                    continue scanning
                }
            }
            if scalar == "\n" || !scalar.isTerminalControl {
                kept.append(scalar)
            } else if (0x09...0x0D).contains(scalar.value) {
                kept.append(" ")
            }
            index = scalars.index(after: index)
        }
        return String(kept)
    }

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
