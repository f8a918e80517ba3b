import ArgumentParser
import Foundation
import Control
import Logging
import Synchronization

/// `--log-level` and `--log-format`, on every command: where the library's swift-log lines go (standard error).
struct LoggingOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "What the library logs on stderr: trace, debug, info, notice, warning, error or critical.",
        discussion: """
            info adds the stream's start and end, viewers joining and leaving, WHIP and ICE/DTLS progress and \
            control commands; debug adds rate decisions and keyframe requests; trace adds every frame a busy \
            encoder replaced. Never a key, token or credential. The progress lines (--quiet) are not log lines.
            """,
        valueName: "level"))
    var logLevel: LogLevelArgument = .warning

    @Option(name: .long, help: ArgumentHelp(
        "text (one line per entry) or json (one JSON object per line: time, level, logger, message, then the metadata).",
        valueName: "format"))
    var logFormat: LogFormat = .text

    /// Installs the handler for the whole process (once, before anything logs).
    func bootstrap() {
        let level = logLevel.level, format = logFormat
        LoggingSystem.bootstrap { label in
            var handler: any LogHandler = switch format {
            case .text: StreamLogHandler.standardError(label: label)
            case .json: JSONLogHandler(label: label)
            }
            handler.logLevel = level
            return handler
        }
    }
}

/// A `--log-level` value.
enum LogLevelArgument: String, ExpressibleByArgument, CaseIterable {
    case trace, debug, info, notice, warning, error, critical

    var level: Logger.Level { Logger.Level(rawValue: rawValue) ?? .warning }
}

/// A `--log-format` value.
enum LogFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json
}

/// A command whose logging options `RTCH264.main` installs before it runs. `SendableMetatype`: no conformance is
/// actor-isolated, so the cast in `main()` cannot tie the command to the main actor (a data-race warning otherwise).
protocol LoggingCommand: SendableMetatype {
    var logging: LoggingOptions { get }
}

/// One JSON object per line on standard error: `time` (ISO 8601, UTC, milliseconds), `level`, `logger` (the label),
/// `message`, `source` (the module), then each metadata key (one that would collide with these is written as
/// `metadata.KEY`). Whole lines are written with one write(2) under a lock, so lines from several threads never mix.
struct JSONLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    private static let lock = Mutex(())
    private static let reserved: Set<String> = ["time", "level", "logger", "message", "source"]

    init(label: String) { self.label = label }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { $1 } }
        if let extra = event.metadata { merged.merge(extra) { $1 } }
        let line = Self.line(
            time: Date(), level: event.level, label: label, message: "\(event.message)", source: event.source,
            metadata: merged)
        Self.lock.withLock { _ in
            let bytes = Array(line.utf8)
            var written = 0
            while written < bytes.count {
                let n = bytes[written...].withUnsafeBytes { Foundation.write(2, $0.baseAddress, $0.count) }
                if n < 0 { if errno == EINTR { continue } else { return } }
                written += n
            }
        }
    }

    /// The JSON line for one entry, newline included.
    static func line(
        time: Date, level: Logger.Level, label: String, message: String, source: String, metadata: Logger.Metadata
    ) -> String {
        var out = "{\"time\":" + quote(timestamp(time)) + ",\"level\":" + quote(level.rawValue)
        out += ",\"logger\":" + quote(label) + ",\"message\":" + quote(message) + ",\"source\":" + quote(source)
        for key in metadata.keys.sorted() {
            let name = reserved.contains(key) ? "metadata." + key : key
            out += "," + quote(name) + ":" + json(metadata[key]!)
        }
        return out + "}\n"
    }

    private static func json(_ value: Logger.Metadata.Value) -> String {
        switch value {
        case .string(let text): quote(text)
        case .stringConvertible(let value): quote(value.description)
        case .array(let values): "[" + values.map(json).joined(separator: ",") + "]"
        case .dictionary(let entries):
            "{" + entries.keys.sorted().map { quote($0) + ":" + json(entries[$0]!) }.joined(separator: ",") + "}"
        }
    }

    /// A JSON string literal (the control endpoint's quoting).
    static func quote(_ text: String) -> String { JSONString.quote(text) }

    /// `2026-11-26T13:59:47.123Z`.
    static func timestamp(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        let millis = Int((date.timeIntervalSince1970 - Double(seconds)) * 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(Int32(millis), 3))Z"
    }
}
