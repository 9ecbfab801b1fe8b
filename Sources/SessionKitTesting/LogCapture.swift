public import Logging
import Synchronization

/// Collects every log line, with its metadata, at trace level, so tests can check what was logged.
///
/// ```swift
/// let capture = LogCapture()
/// let provider = ProviderClient(configuration: configuration, logger: capture.logger)
/// #expect(!capture.lines.contains { $0.contains(token) })
/// ```
public final class LogCapture: Sendable {
    private let collected = Mutex<[String]>([])

    /// An empty capture.
    public init() {}

    /// Every line so far: level, message and merged metadata.
    public var lines: [String] { collected.withLock { $0 } }

    /// A logger at trace level that writes into this capture.
    public var logger: Logger {
        Logger(label: "LogCapture") { _ in Handler(capture: self) }
    }

    fileprivate func append(_ line: String) {
        collected.withLock { $0.append(line) }
    }

    private struct Handler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { $1 }
            capture.append("\(event.level) \(event.message) \(merged)")
        }
    }
}
