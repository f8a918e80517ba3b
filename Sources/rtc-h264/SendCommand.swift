import ArgumentParser
import Dispatch
import Foundation
import H264
import NIOCore
import NIOPosix
import SDP
import Sender
import Video

struct SendCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        abstract: "Encode the test pattern or a Y4M input and send it as SRTP H.264 to a UDP peer.",
        discussion: """
            Listens for RTCP from the peer on the local port (multiplexed by default): PLI and FIR make the next frame \
            an IDR (at most one per --keyframe-throttle), REMB and TMMBR cap the bitrate. Prints one progress line per \
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

    @Option(help: "Start the control endpoint on HOST:PORT (loopback unless you say otherwise).")
    var control: HostPort?

    @Option(help: "Write the SDP a receiver needs to this file (mode 0600: it holds the SRTP key).")
    var sdp: String?

    @Option(help: "Write statistics to this file as JSON lines, once a second.")
    var stats: String?

    @Option(name: .customLong("save-annexb"), help: "Also write exactly the bitstream sent, as Annex-B, to this file.")
    var saveAnnexB: String?

    @Flag(name: .customLong("as-fast-as-possible"), help: "Do not pace frames in real time (benchmarks, tests).")
    var asFastAsPossible = false

    @Flag(help: "No progress lines.")
    var quiet = false

    func validate() throws {
        if pattern && input != nil { throw ValidationError("give --input or --pattern, not both") }
        if let frames, frames <= 0 { throw ValidationError("--frames must be positive") }
        if let duration, duration <= 0 { throw ValidationError("--duration must be positive") }
        guard (0...65534).contains(localPort) else { throw ValidationError("--local-port must be 0-65534") }
    }

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
        var configuration = try stream.configuration(
            sourceWidth: isPattern ? nil : source.width, sourceHeight: isPattern ? nil : source.height,
            sourceFrameRate: source.nativeFrameRate)
        configuration.localPort = localPort
        configuration.frameLimit = frames
        configuration.duration = duration
        configuration.pacing = asFastAsPossible ? .asFastAsPossible : .realTime
        if stream.peer.host.contains(":") { configuration.localHost = "::" }

        let sender = try await H264Sender(configuration: configuration, source: source)
        if let sdp {
            let description = configuration.sessionDescription(
                parameterSets: try configuration.probeParameterSets(), ssrc: sender.ssrc)
            try PrivateFile.write(description.serialize(), to: sdp)
        }
        let annexB = try saveAnnexB.map { try OutputFile(path: $0) }
        let statsFile = try stats.map { try OutputFile(path: $0) }
        if let annexB {
            sender.onFrameSent = { frame, _ in annexB.write(frame.bytes) }
        }
        let quiet = self.quiet
        sender.onReport = { stats in
            if !quiet { FileHandle.standardError.write(Data((ProgressLine.format(stats) + "\n").utf8)) }
            if let statsFile, let line = try? JSONLine.encode(stats) { statsFile.write(Array(line.utf8)) }
        }
        var controlServer: ControlServer?
        if let control {
            controlServer = try await ControlServer(
                host: control.host, port: control.port, group: MultiThreadedEventLoopGroup.singleton
            ) { command in sender.handle(command) }
            if !quiet { FileHandle.standardError.write(Data("control endpoint on http://\(control)\n".utf8)) }
        }
        let signals = SignalTrap { sender.stop() }
        defer { signals.cancel() }
        let final = try await sender.run()
        await controlServer?.close()
        annexB?.close()
        // The last, partial interval too: the file ends with the final totals.
        if let statsFile, let line = try? JSONLine.encode(final) { statsFile.write(Array(line.utf8)) }
        statsFile?.close()
        if !quiet {
            FileHandle.standardError.write(Data(ProgressLine.summary(final).utf8))
        }
    }
}
