import ArgumentParser
import Dispatch
import Foundation
import H264
import Control
import SDP
import Sender
import Video

struct SendCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        abstract: "Encode the test pattern or a Y4M input and send it as SRTP H.264 to a UDP peer.",
        discussion: """
            Listens for RTCP from the peer on the local port (multiplexed by default): PLI and FIR make the next frame \
            an IDR (at most one per --keyframe-throttle), REMB and TMMBR cap the bitrate, NACKs are answered from a \
            packet history, and the loss in receiver reports drives congestion control. Packets are paced at 2.5x the \
            target; the resolution follows the bitrate (--degradation-preference). Prints one progress line per \
            second on stderr. Stops at the end of a file input, after --frames or --duration, or on SIGINT/SIGTERM \
            (sending an RTCP BYE).
            Example: rtc-h264 send --to 127.0.0.1:5004 --sdp stream.sdp --control 127.0.0.1:8090
            """
    )

    @OptionGroup var stream: StreamOptions

    @Option(help: "A Y4M file, or - for standard input (default: the built-in test pattern).")
    var input: String?

    @Flag(help: "Send the built-in test pattern (the default).")
    var pattern = false

    @Option(help: "Stop after this many frames.")
    var frames: Int?

    @Option(help: "Stop after this many seconds of media.")
    var duration: Double?

    @Option(name: .customLong("local-port"), help: "Local RTP port to send from and receive RTCP on (0: any).")
    var localPort: Int = 0

    @Option(help: "Start the control endpoint on HOST:PORT (loopback unless you say otherwise; then a token is required).")
    var control: HostPort?

    @Option(name: .customLong("control-token"), help: "Bearer token the control endpoint requires (never printed).")
    var controlToken: String?

    @Option(name: .customLong("control-token-file"), help: "A file holding the control endpoint's bearer token.")
    var controlTokenFile: String?

    @Option(help: "Write the SDP a receiver needs to this file (mode 0600: it holds the SRTP key).")
    var sdp: String?

    @Option(help: "Write statistics to this file as JSON lines, once a second.")
    var stats: String?

    @Option(name: .customLong("save-annexb"), help: "Also write exactly the bitstream sent, as Annex-B, to this file.")
    var saveAnnexB: String?

    @Flag(name: .customLong("as-fast-as-possible"), help: "Do not pace frames or packets in real time (benchmarks, tests).")
    var asFastAsPossible = false

    @Flag(help: "No progress lines.")
    var quiet = false

    func validate() throws {
        if pattern && input != nil { throw ValidationError("give --input or --pattern, not both") }
        if let frames, frames <= 0 { throw ValidationError("--frames must be positive") }
        if let duration, !(duration > 0 && duration <= Self.maximumDuration) {
            throw ValidationError("--duration must be more than 0 and at most \(Int(Self.maximumDuration)) seconds")
        }
        if controlToken != nil && controlTokenFile != nil {
            throw ValidationError("give --control-token or --control-token-file, not both")
        }
        if (controlToken != nil || controlTokenFile != nil) && control == nil {
            throw ValidationError("--control-token needs --control")
        }
        guard (0...65534).contains(localPort) else { throw ValidationError("--local-port must be 0-65534") }
    }

    /// The longest --duration accepted (ten years, in seconds): larger values would overflow the clock arithmetic.
    static let maximumDuration: Double = 315_360_000

    func run() async throws {
        let source: FrameSource
        do {
            if let input {
                source = try Y4MSource(path: input)
            } else {
                let size = stream.encoding.patternSize
                source = try PatternSource(width: size.width, height: size.height)
            }
        } catch {
            throw ValidationError("input: \(error)")
        }
        let isPattern = input == nil
        let token = try readControlToken()
        var configuration = try stream.configuration(
            sourceWidth: isPattern ? nil : source.width, sourceHeight: isPattern ? nil : source.height,
            sourceFrameRate: source.nativeFrameRate)
        configuration.localPort = localPort
        if asFastAsPossible { configuration.pacingFactor = nil }  // faster than real time: nothing to pace
        if stream.peer.host.contains(":") { configuration.localHost = "::" }
        let annexB = try saveAnnexB.map { try OutputFile(path: $0) }
        let statsFile = try stats.map { try OutputFile(path: $0) }
        if let annexB {
            configuration.frameObserver = { frame, _ in annexB.write(frame.bytes) }
        }

        let sender = try await H264Sender(configuration: configuration)
        if let sdp {
            let description = configuration.sessionDescription(
                parameterSets: try configuration.probeParameterSets(), ssrc: sender.ssrc, rtxSSRC: sender.rtxSSRC)
            try PrivateFile.write(description.serialize(), to: sdp)
        }
        let quiet = self.quiet
        // Every report, the final one last: progress lines and the stats file (which so ends with the totals).
        let reporting = Task {
            for await stats in sender.reports {
                if !quiet { FileHandle.standardError.write(Data((ProgressLine.format(stats) + "\n").utf8)) }
                if let statsFile, let line = try? JSONLine.encode(stats) { statsFile.write(Array(line.utf8)) }
            }
        }
        var controlServer: ControlServer?
        if let control {
            do {
                controlServer = try await ControlServer(host: control.host, port: control.port, token: token, sender: sender)
            } catch let error as ControlServerError {
                _ = try? await sender.finish()
                throw ValidationError("\(error)")
            }
            if !quiet { FileHandle.standardError.write(Data("control endpoint on http://\(control)\n".utf8)) }
        }
        let pump = FramePump(
            source: source, sender: sender, pacing: asFastAsPossible ? .asFastAsPossible : .realTime,
            frameLimit: frames, durationLimit: duration.map { .seconds($0) })
        let signals = SignalTrap { pump.stop() }
        defer { signals.cancel() }
        var sourceError: Error?
        do {
            _ = try await pump.run()
        } catch {
            sourceError = error
        }
        let final = try await sender.finish()
        await reporting.value
        await controlServer?.close()
        annexB?.close()
        statsFile?.close()
        if let sourceError { throw sourceError }
        if !quiet {
            FileHandle.standardError.write(Data(ProgressLine.summary(final).utf8))
        }
    }

    /// The control token from --control-token or --control-token-file.
    func readControlToken() throws -> String? {
        if let controlToken { return controlToken }
        guard let controlTokenFile else { return nil }
        do {
            return try String(contentsOfFile: controlTokenFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        } catch {
            throw ValidationError("cannot read --control-token-file \(controlTokenFile): \(error.localizedDescription)")
        }
    }
}
