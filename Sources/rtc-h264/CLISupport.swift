import ArgumentParser
import Dispatch
import Foundation
import Codec
import Sender
import Video

/// Writes a file readable only by its owner (SDPs hold SRTP keys).
enum PrivateFile {
    static func write(_ text: String, to path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { throw CLIError("cannot create \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        fchmod(fd, 0o600)
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw CLIError("cannot write \(path): \(String(cString: strerror(errno)))")
            }
            written += n
        }
    }
}

/// An output file written from the event loop (Annex-B tee, stats lines). The path is opened with open(2), never
/// replaced (`Video.OutputFile`).
final class OutputFile: @unchecked Sendable {
    private let file: Video.OutputFile

    /// Opens `path`; `privateToOwner` creates a new file with mode 0600 (statistics hold viewer session ids).
    init(path: String, privateToOwner: Bool = false) throws {
        do { file = try Video.OutputFile(path: path, privateToOwner: privateToOwner) } catch { throw CLIError("\(error)") }
    }

    func write(_ bytes: [UInt8]) { try? file.write(bytes) }
    func close() { try? file.close() }
}

/// An error with a message for the user.
struct CLIError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// SIGINT and SIGTERM run a handler (once) instead of killing the process.
final class SignalTrap: @unchecked Sendable {
    private var sources: [DispatchSourceSignal] = []

    init(_ handler: @escaping @Sendable () -> Void) {
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler(handler: handler)
            source.resume()
            sources.append(source)
        }
    }

    func cancel() {
        for source in sources { source.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}

enum JSONLine {
    static func encode<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(value), as: UTF8.self) + "\n"
    }
}

/// The one-line progress report and the summary at exit.
enum ProgressLine {
    static func format(_ s: SenderStats) -> String {
        var parts = [
            String(format: "%6.1fs", s.timestamp),
            "frames \(s.framesEncoded) (\(String(format: "%.1f", s.framesPerSecond)) fps)",
            "target \(RateParser.format(bitrate: s.targetBitrate))",
            "actual \(RateParser.format(bitrate: s.actualBitrate))",
            "key \(s.keyFramesEncoded)",
            "PLI \(s.pliCount) FIR \(s.firCount)",
        ]
        if s.framesSkipped > 0 { parts.append("skipped \(s.framesSkipped)") }
        if let rtt = s.roundTripTime { parts.append(String(format: "RTT %.1f ms", rtt * 1000)) }
        if let loss = s.fractionLost { parts.append(String(format: "loss %.1f%%", loss * 100)) }
        if s.sendErrors > 0 { parts.append("send errors \(s.sendErrors)") }
        return parts.joined(separator: "  ")
    }

    static func summary(_ s: SenderStats) -> String {
        let seconds = max(s.timestamp, 1e-9)
        return """
            sent \(s.framesSent) frames (\(s.keyFramesEncoded) keyframes, \(s.framesSkipped) skipped) in \(s.packetsSent) packets, \
            \(s.bytesSent) payload bytes over \(String(format: "%.2f", s.timestamp)) s \
            (\(RateParser.format(bitrate: Int(Double(s.bytesSent * 8) / seconds)))); \
            PLI \(s.pliCount), FIR \(s.firCount), encode \(String(format: "%.1f", s.totalEncodeTime * 1000 / Double(max(1, s.framesEncoded)))) ms/frame

            """
    }
}

/// A bearer token given on the command line or in a file (`--token`/`--token-file`, `--control-token`/
/// `--control-token-file`): one reading and one error for every command. The token itself is never printed.
enum BearerTokenOption {
    /// The token: `value` when given, else the file's contents without surrounding white space, else nil.
    /// - Throws: `ValidationError` naming the option and the file when it cannot be read.
    static func read(_ value: String?, file: String?, fileOption: String) throws -> String? {
        if let value { return value }
        guard let file else { return nil }
        do {
            return try String(contentsOfFile: file, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        } catch {
            throw ValidationError("cannot read \(fileOption) \(file): \(error.localizedDescription)")
        }
    }
}
