import ArgumentParser
import Codec
import Control
import Foundation
import Sender

struct ControlCLI: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "control",
        abstract: "Send a command to a running sender's or WHEP server's control endpoint.",
        discussion: """
            The sender (send) or WHEP server (serve) must run with --control 127.0.0.1:PORT. Examples:
              rtc-h264 control --to 127.0.0.1:8090 bitrate 800k
              rtc-h264 control --to 127.0.0.1:8090 framerate 15
              rtc-h264 control --to 127.0.0.1:8090 degradation-preference balanced
              rtc-h264 control --to 127.0.0.1:8090 keyframe
              rtc-h264 control --to 127.0.0.1:8090 stats
              rtc-h264 control --to 127.0.0.1:8090 metrics   (the same, as Prometheus text)
            The same API answers curl: curl -s -XPOST -d 800k http://127.0.0.1:8090/bitrate
            """
    )

    @Option(name: .customLong("to"), help: "The control endpoint, HOST:PORT.")
    var endpoint: HostPort

    @Option(name: .customLong("token-file"), help: "A file holding the endpoint's bearer token (sent, never printed).")
    var tokenFile: String?

    @Argument(help: "bitrate RATE | framerate FPS | degradation-preference maintain-framerate|maintain-resolution|balanced | keyframe | stats | metrics")
    var words: [String]

    @OptionGroup(title: "Logging") var logging: LoggingOptions

    func run() async throws {
        let command = try Self.parse(words)
        var token: String?
        if let tokenFile {
            do {
                token = try String(contentsOfFile: tokenFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            } catch {
                throw ValidationError("cannot read --token-file \(tokenFile): \(error.localizedDescription)")
            }
        }
        let reply = try await ControlClient.send(command, host: endpoint.host, port: endpoint.port, token: token)
        print(reply.body)
        if reply.status != 200 { throw ExitCode(1) }
    }

    static func parse(_ words: [String]) throws -> ControlCommand {
        switch (words.first, words.count) {
        case ("bitrate", 2):
            do { return .setBitrate(try RateParser.bitrate(words[1])) } catch { throw ValidationError("bitrate: \(error)") }
        case ("framerate", 2):
            do { return .setFrameRate(try RateParser.frameRate(words[1])) } catch { throw ValidationError("framerate: \(error)") }
        case ("degradation-preference", 2):
            switch DegradationPreference.parse(words[1]) {
            case .success(let preference): return .setDegradationPreference(preference)
            case .failure(let error): throw ValidationError("degradation-preference: \(error)")
            }
        case ("keyframe", 1): return .requestKeyframe
        case ("stats", 1): return .stats
        case ("metrics", 1): return .metrics
        default:
            throw ValidationError(
                "expected: bitrate RATE | framerate FPS | degradation-preference maintain-framerate|maintain-resolution|balanced | keyframe | stats | metrics")
        }
    }
}

extension ControlCLI: LoggingCommand {}
