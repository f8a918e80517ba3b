import ArgumentParser
import Foundation
import H264
import SDP
import SRTP
import Receiver
import RTP
import Sender
import Video

struct ReceiveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "receive",
        abstract: "Receive, decrypt, reassemble and decode an H.264 RTP stream.",
        discussion: """
            Sends RTCP Receiver Reports about once a second and a PLI when it sees loss or an undecodable frame \
            (repeated until a keyframe arrives). Writes decoded frames as Y4M (output ending in .y4m) or the received \
            access units as Annex-B (any other name). A Y4M file has one size: every frame is written at the first \
            frame's size, or at --output-size, scaled when the sender switches resolution (said once on stderr). Stops after --frames or --duration, when the sender says BYE, \
            or on SIGINT/SIGTERM, and prints what it received.
            Example: rtc-h264 receive --listen 127.0.0.1:5004 --sdp stream.sdp --output out.y4m
            With --whep URL it plays a WHEP stream instead of listening (draft-ietf-wish-whep; proven with rtc-h264 \
            serve --whep and aiortc): it POSTs a recvonly offer (H.264 Constrained Baseline and High with RTX and FlexFEC, full \
            ICE, DTLS-SRTP) with the --token as a bearer token, receives on the pair ICE selects, and DELETEs the \
            session at the end; https:// certificates are verified as for send --whip. --sessions N plays N sessions \
            at once (joining --join-interval apart) and --no-decode only reassembles frames: a load generator. \
            With --whep the summary is per session, with how long after its offer each played its first frame.
            Example: rtc-h264 receive --whep http://127.0.0.1:8080/whep --output out.y4m --duration 10
            Example: rtc-h264 receive --whep http://127.0.0.1:8080/whep --sessions 100 --join-interval 0.1 --no-decode --duration 60 --json
            """
    )

    @Option(help: "Address and RTP port to listen on, HOST:PORT (required, except with --whep).")
    var listen: HostPort?

    @OptionGroup(title: "WHEP") var whepOptions: WHEPPlayOptions

    @Option(help: "The sender's SDP (its a=crypto key, packetization, rtcp-mux).")
    var sdp: String?

    @Option(help: "SRTP master key and salt, base64 (when no --sdp).")
    var key: String?

    @Option(name: .customLong("local-key"), help: "The SRTP key this receiver protects its RTCP with, base64 (RFC 4568: each side sends with its own key; default: the sender's key).")
    var localKey: String?

    @Option(help: "SRTP suite (when no --sdp).")
    var suite: String = SRTPSuite.default.sdpName

    @Flag(name: .customLong("no-srtp"), help: "Plain RTP (when no --sdp).")
    var noSRTP = false

    @Flag(name: .customLong("no-rtcp-mux"), help: "RTCP on port+1 (when no --sdp).")
    var noRTCPMux = false

    @Flag(name: .customLong("no-nack"), help: "Do not ask for lost packets with NACKs (default: NACK when the SDP offers it, or with --no-sdp keys).")
    var noNACK = false

    @Option(name: .customLong("rtx-pt"), help: "The sender's RTX payload type (when no --sdp; an SDP says it itself).")
    var rtxPayloadType: UInt8?

    @Flag(name: .customLong("no-repair-delay"), help: "Hand each frame to the decoder as it completes. By default, while losses need repair the receiver plays a round trip behind (frames at their expected time plus the longest repair of the last 60 s while a frame of the last 10 s needed one, at most --jitter-buffer-max), so that a frame repaired late does not freeze the picture; a clean path adds nothing.")
    var noRepairDelay = false

    @Option(name: .customLong("fec-pt"), help: "The sender's FlexFEC payload type (flexfec-03; when no --sdp; an SDP says it itself): lost packets are recovered from it.")
    var fecPayloadType: UInt8?

    @Option(name: .customLong("jitter-buffer"), help: "The least milliseconds to wait for a missing packet before giving its frame up (with NACK the wait grows to 4 RTT + 3 x (5 ms + 2 x jitter) + 4 x jitter: four NACK tries, each repeat one RTT + 5 ms + 2 x jitter after the last; at most --jitter-buffer-max). Until an RTT is known (RTCP XR or a NACK's answer) the wait is 1 s, within these bounds.")
    var jitterBufferMs: Int = 300

    @Option(name: .customLong("jitter-buffer-max"), help: "The most milliseconds to wait for a missing packet, however long the RTT (at least --jitter-buffer).")
    var jitterBufferMaxMs: Int = 2000

    @Option(help: "Write decoded frames (.y4m) or the received bitstream (.h264) here.")
    var output: String?

    @Option(name: .customLong("output-size"), help: ArgumentHelp("Write every Y4M frame at this size, WxH (default: the first decoded frame's size); frames of another size are scaled.", valueName: "WxH"))
    var outputSize: String?

    @Option(help: "Stop after this many decoded frames.")
    var frames: Int?

    @Option(help: "Stop this many seconds after the first packet.")
    var duration: Double?

    @Option(name: .customLong("idle-timeout"), help: "Stop when no packet has arrived for this many seconds.")
    var idleTimeout: Double?

    @Flag(help: "Print the summary as JSON.")
    var json = false

    func validate() throws {
        try whepOptions.check(command: self)
        if whepOptions.whep != nil { return try validateCommon() }
        guard let listen else { throw ValidationError("give --listen HOST:PORT (or --whep URL)") }
        guard (0...65534).contains(listen.port) else { throw ValidationError("--listen needs a port between 0 and 65534") }
        if sdp == nil && key == nil && !noSRTP {
            throw ValidationError("give --sdp, --key (with --suite), or --no-srtp")
        }
        if sdp != nil && (key != nil || noSRTP) { throw ValidationError("--sdp already says how the stream is protected") }
        if noSRTP && localKey != nil { throw ValidationError("--no-srtp cannot be used with --local-key") }
        if let rtxPayloadType {
            guard (96...127).contains(rtxPayloadType) else { throw ValidationError("--rtx-pt must be 96-127") }
            if sdp != nil { throw ValidationError("--sdp already says the RTX payload type") }
        }
        if let fecPayloadType {
            guard PayloadType.isValidForFlexFEC(fecPayloadType), fecPayloadType != rtxPayloadType
            else { throw ValidationError("--fec-pt must be 35-63 or 96-127 and differ from --rtx-pt") }
            if sdp != nil { throw ValidationError("--sdp already says the FEC payload type") }
        }
        try validateCommon()
    }

    /// The checks of the options every way of receiving shares.
    func validateCommon() throws {
        if let outputSize {
            guard output?.hasSuffix(".y4m") == true else { throw ValidationError("--output-size needs a Y4M --output (a name ending in .y4m)") }
            _ = try Self.parseOutputSize(outputSize)
        }
        if let frames, frames <= 0 { throw ValidationError("--frames must be positive") }
        for (name, value) in [("--duration", duration), ("--idle-timeout", idleTimeout)] {
            if let value, !(value > 0 && value <= SourceOptions.maximumDuration) {
                throw ValidationError("\(name) must be more than 0 and at most \(Int(SourceOptions.maximumDuration)) seconds")
            }
        }
        guard (10...10_000).contains(jitterBufferMs) else { throw ValidationError("--jitter-buffer must be 10-10000 ms") }
        guard (10...10_000).contains(jitterBufferMaxMs), jitterBufferMaxMs >= jitterBufferMs else {
            throw ValidationError("--jitter-buffer-max must be 10-10000 ms and at least --jitter-buffer")
        }
        if whepOptions.noDecode, output?.hasSuffix(".y4m") == true {
            throw ValidationError("--no-decode writes no pictures: give an Annex-B --output (not .y4m), or decode")
        }
    }

    @OptionGroup(title: "Logging") var logging: LoggingOptions

    func run() async throws {
        if whepOptions.whep != nil { return try await runWHEP() }
        guard let listen else { throw ValidationError("give --listen HOST:PORT (or --whep URL)") }
        var configuration = ReceiverConfiguration(listenHost: listen.host, listenPort: listen.port)
        applyCommon(to: &configuration)
        if let sdp {
            let text: String
            do { text = try String(contentsOfFile: sdp, encoding: .utf8) } catch {
                throw ValidationError("cannot read --sdp \(sdp): \(error.localizedDescription)")
            }
            let description = try SessionDescription(parsing: text)
            configuration.rtcpMux = description.rtcpMux
            // NACK only towards a sender that says it answers them; RTX as the SDP announces it.
            configuration.nack = !noNACK && description.feedback.contains("nack")
            configuration.rtxPayloadType = description.rtx?.payloadType
            configuration.fecPayloadType = description.fec?.payloadType
            // Transport-wide feedback when the sender carries the extension and asks for it.
            if description.feedback.contains("transport-cc") {
                configuration.transportWideCCExtensionID = description.transportWideCCExtensionID
            }
            configuration.absoluteCaptureTimeExtensionID = description.absoluteCaptureTimeExtensionID
            configuration.playoutDelayExtensionID = description.playoutDelayExtensionID
            configuration.dependencyDescriptorExtensionID = description.dependencyDescriptorExtensionID
            if let crypto = description.crypto {
                guard let suite = SRTPSuite(sdpName: crypto.suite) else {
                    throw ValidationError("the SDP's crypto suite \(crypto.suite) is not supported")
                }
                let key = try SDESInlineKey(parsing: crypto.keyParameters, for: suite)
                configuration.security = .init(
                    suite: suite, remoteKey: key.masterKey,
                    key: try StreamOptions.readKey(localKey, file: nil, option: "--local-key", suite: suite))
            }
        } else {
            configuration.rtcpMux = !noRTCPMux
            if !noSRTP, let key {
                guard let suite = SRTPSuite(sdpName: suite) else { throw ValidationError("unknown --suite \(suite)") }
                guard let bytes = Data(base64Encoded: key) else { throw ValidationError("--key is not valid base64") }
                configuration.security = .init(
                    suite: suite, remoteKey: try SRTPMasterKey(keyAndSalt: [UInt8](bytes), for: suite),
                    key: try StreamOptions.readKey(localKey, file: nil, option: "--local-key", suite: suite))
            }
        }
        let files = try openOutput(into: &configuration)
        let receiver: H264Receiver
        do {
            receiver = try await H264Receiver(configuration: configuration)
        } catch let error as ReceiverError {
            throw ValidationError("\(error)")
        }
        let signals = SignalTrap { receiver.stop() }
        defer { signals.cancel() }
        let stats = try await receiver.run()
        try files.close()
        if json {
            print(try JSONLine.encode(stats), terminator: "")
        } else {
            print(Self.summary(stats))
        }
    }

    /// The output file, if any: decoded pictures (Y4M) or the received access units (Annex-B).
    struct OutputFiles {
        var annexB: OutputFile?
        var y4m: DecodedFrameFile?
        var path: String?

        /// Closes the file.
        /// - Throws: `CLIError` when the Y4M file could not be written.
        func close() throws {
            annexB?.close()
            if let failure = y4m?.close() { throw CLIError("cannot write \(path ?? ""): \(failure)") }
        }
    }

    /// Opens `--output` and hooks it to the configuration's callbacks.
    func openOutput(into configuration: inout ReceiverConfiguration) throws -> OutputFiles {
        var files = OutputFiles(path: output)
        guard let output else { return files }
        if output.hasSuffix(".y4m") {
            let file = DecodedFrameFile(path: output, size: try outputSize.map(Self.parseOutputSize)) { line in
                FileHandle.standardError.write(Data((line + "\n").utf8))
            }
            files.y4m = file
            configuration.onFrameDecoded = { picture, _ in file.write(picture) }
        } else {
            let file = try OutputFile(path: output)
            files.annexB = file
            configuration.onAccessUnit = { received in file.write(received.frame.bytes) }
        }
        return files
    }

    /// The one-line summary of what was received.
    static func summary(_ stats: ReceiverStats) -> String {
        """
            received \(stats.packetsReceived) packets (\(stats.packetsLost) lost), \(stats.framesReceived) frames; \
            decoded \(stats.framesDecoded) (\(stats.keyFramesDecoded) keyframes), dropped \(stats.framesDropped), \
            decode errors \(stats.decodeErrors), PLI sent \(stats.pliCount), NACKs sent \(stats.nackCount) \
            (\(stats.packetsNACKed) packets, \(stats.retransmittedPacketsReceived) recovered), \
            resolution changes \(stats.resolutionChanges), freezes \(stats.freezeCount) (longest \(Int(stats.longestFreeze * 1000)) ms), SRTP failures \(stats.srtpUnprotectFailures), \
            malformed \(stats.malformedPackets)\(stats.byeReceived ? ", BYE received" : "")\(Self.latencySummary(stats))
            """
    }

    /// The settings every way of receiving shares: limits, the jitter buffer, NACK, repair delay, decoding.
    func applyCommon(to configuration: inout ReceiverConfiguration) {
        configuration.frameLimit = frames
        configuration.duration = duration.map { .seconds($0) }
        configuration.idleTimeout = idleTimeout.map { .seconds($0) }
        configuration.jitterBufferWait = .milliseconds(jitterBufferMs)
        configuration.jitterBufferMaximumWait = .milliseconds(jitterBufferMaxMs)
        configuration.nack = !noNACK
        configuration.rtxPayloadType = rtxPayloadType
        configuration.fecPayloadType = fecPayloadType
        configuration.repairDelay = !noRepairDelay
        configuration.decode = !whepOptions.noDecode
    }

    /// The latency part of the summary: capture -> decoded (from abs-capture-time) and the playout delay asked for,
    /// each only when its extension arrived.
    static func latencySummary(_ stats: ReceiverStats) -> String {
        var text = ""
        if let latency = stats.captureToDecoded {
            func ms(_ value: Double) -> String { String(format: "%.1f", value) }
            text += "; capture -> decoded p50 \(ms(latency.p50)) ms, p95 \(ms(latency.p95)) ms, max \(ms(latency.max)) ms"
                + " (\(latency.frames) frames)"
            if let first = stats.captureToFirstPacket {
                text += ", to the first packet p50 \(ms(first.p50)) ms"
            }
            if let spread = stats.firstToLastPacket {
                text += ", first to last packet p50 \(ms(spread.p50)) ms, p95 \(ms(spread.p95)) ms"
            }
        }
        if let delay = stats.playoutDelay {
            text += "; playout delay \(delay.minimumMilliseconds)-\(delay.maximumMilliseconds) ms"
        }
        return text
    }

    /// The largest `--output-size` in luma samples: the largest picture H.264 allows (level 6.2 MaxFS, 139,264
    /// macroblocks of 256 samples, H.264 Table A-1), so one frame buffer stays under 54 MB.
    static let maximumOutputSamples = 139_264 * 256

    /// Parses and checks `--output-size`: `WxH`, both even (4:2:0 chroma), 2 to `FrameSize.maximumDimension`, at most
    /// `maximumOutputSamples` samples.
    /// - Parameter text: the option's value.
    /// - Returns: the size.
    /// - Throws: `ValidationError` naming the option and what is accepted.
    static func parseOutputSize(_ text: String) throws -> FrameSize {
        let accepted = "WxH with even dimensions of 2-\(FrameSize.maximumDimension) and at most \(maximumOutputSamples) pixels"
        guard let size = FrameSize(argument: text), size.width % 2 == 0, size.height % 2 == 0,
              size.width * size.height <= maximumOutputSamples else {
            throw ValidationError("--output-size: invalid size '\(text.prefix(32))' (\(accepted))")
        }
        return size
    }
}

extension ReceiveCommand: LoggingCommand {}
