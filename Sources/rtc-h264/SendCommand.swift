import ArgumentParser
import ServiceLifecycle
import Dispatch
import Foundation
import H264
import Control
import SDP
import Sender
import Video
import WHIP

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
            (sending an RTCP BYE); a second signal ends it at once.
            Example: rtc-h264 send --to 127.0.0.1:5004 --sdp stream.sdp --control 127.0.0.1:8090
            With --whip URL it publishes to a WHIP endpoint (RFC 9725: an SFU such as Janus or MediaMTX) instead of \
            --to: it POSTs a sendonly offer (full ICE, DTLS-SRTP) with the --token as a bearer token, sends over the \
            ICE pair with the DTLS-derived keys, and DELETEs the session on exit. https:// is verified TLS 1.2+ (the \
            system's trust store plus --ca-file; the host name always checked, no way to skip it); a token is sent \
            over http:// only to a loopback host. --to, the SRTP key options, --no-srtp, --accept-plain-rtcp, \
            --no-rtcp-mux, --local-port and --sdp do not apply. --tls-cert PEM --tls-key PEM serve --control over HTTPS.
            Example: rtc-h264 send --whip https://sfu.example/whip/endpoint/abc --token-file whip.token
            Behind a NAT or a firewall, --ice-server stun:HOST adds a server-reflexive candidate and --ice-server \
            turn:HOST with --ice-username and --ice-credential-file a relayed one (TURN over UDP, RFC 8656): media then \
            reaches the endpoint through the TURN server when nothing more direct works. The TURN servers the endpoint \
            offers in its Link headers (RFC 9725 section 4.6) are used too.
            Example: rtc-h264 send --whip https://sfu.example/whip/abc --ice-server turn:turn.example.net \
            --ice-username robot --ice-credential-file turn.password
            """
    )

    @OptionGroup var stream: StreamOptions

    @OptionGroup var source: SourceOptions


    @Option(name: .customLong("local-port"), help: "Local RTP port to send from and receive RTCP on (0: any).")
    var localPort: Int = 0

    @OptionGroup var control: ControlEndpointOptions

    @OptionGroup var tls: TLSServerOptions

    @OptionGroup var ice: ICEServerOptions

    @Option(help: "Publish to this WHIP endpoint (https://HOST[:PORT]/PATH or http://..., RFC 9725) instead of --to.")
    var whip: String?

    @Option(help: ArgumentHelp(
        "With --whip, publish N simulcast encodings (2 or 3): full, half and quarter size (--size), each its own encoder and SSRC, named f, h and q (RFC 8851/8853).",
        discussion: "The congestion estimate is split over them as libwebrtc does (lowest first, each to its target before the next; at 1280x720: 150k, 500k, then up to 2.5M for the full size, so --bitrate 3.2M sends all three); a layer the estimate cannot carry is paused and resumes with a keyframe. An endpoint that answers without simulcast gets one stream of the full size.",
        valueName: "n"))
    var simulcast: Int?

    @Option(name: .customLong("ca-file"), help: "PEM file of CA certificates to trust for an https:// --whip URL, in addition to the system's trust store.")
    var caFile: String?

    @Option(help: "Bearer token for the WHIP endpoint (never printed; prefer --token-file).")
    var token: String?

    @Option(name: .customLong("token-file"), help: "A file holding the WHIP endpoint's bearer token.")
    var tokenFile: String?

    @Option(help: "Write the SDP a receiver needs to this file (mode 0600: it holds the SRTP key).")
    var sdp: String?

    @Option(help: "Write statistics to this file as JSON lines, once a second (a new file is created readable by its owner only).")
    var stats: String?

    @Option(name: .customLong("save-annexb"), help: "Also write exactly the bitstream sent, as Annex-B, to this file.")
    var saveAnnexB: String?

    @Option(name: .customLong("start-bitrate"), help: "Where the congestion estimate starts (default 300k, or --bitrate if lower). With transport-cc feedback, NACK and RTX (--rtx; WHIP negotiates them) the sender starts there and probes up at once (3x, then 2x each result that gets through); otherwise it starts at --bitrate.")
    var startBitrate: RateArgument?

    @Flag(name: .customLong("as-fast-as-possible"), help: "Do not pace frames or packets in real time (benchmarks, tests).")
    var asFastAsPossible = false

    @Flag(help: "No progress lines.")
    var quiet = false

    func validate() throws {
        guard (0...65534).contains(localPort) else { throw ValidationError("--local-port must be 0-65534") }
        if let startBitrate, startBitrate.bps < stream.policy.minBitrate.bps {
            throw ValidationError("--start-bitrate must be at least --min-bitrate (\(stream.policy.minBitrate.bps) bit/s)")
        }
        if token != nil && tokenFile != nil { throw ValidationError("give --token or --token-file, not both") }
        if tls.tlsCert != nil && control.control == nil { throw ValidationError("--tls-cert and --tls-key need --control") }
        try ice.check(whip: whip != nil)
        if let simulcast {
            guard whip != nil else { throw ValidationError("--simulcast needs --whip") }
            guard (2...3).contains(simulcast) else { throw ValidationError("--simulcast must be 2 or 3, got \(simulcast)") }
            guard !stream.fec else { throw ValidationError("--simulcast cannot be used with --fec") }
        }
        if let whip {
            var conflicting: [String] = []
            if stream.peer != nil { conflicting.append("--to") }
            if stream.key != nil { conflicting.append("--key") }
            if stream.keyFile != nil { conflicting.append("--key-file") }
            if stream.remoteKey != nil { conflicting.append("--remote-key") }
            if stream.remoteKeyFile != nil { conflicting.append("--remote-key-file") }
            if stream.noSRTP { conflicting.append("--no-srtp") }
            if stream.acceptPlainRTCP { conflicting.append("--accept-plain-rtcp") }
            if stream.noRTCPMux { conflicting.append("--no-rtcp-mux") }
            if localPort != 0 { conflicting.append("--local-port") }
            if sdp != nil { conflicting.append("--sdp") }
            guard conflicting.isEmpty else {
                throw ValidationError(
                    "--whip cannot be used with \(conflicting.joined(separator: ", ")): ICE finds the peer and DTLS makes the keys")
            }
            try BearerTokenOption.checkEndpoint(
                whip, token: token, tokenFile: tokenFile, caFile: caFile, option: "--whip", endpoint: "WHIP")
        } else {
            if token != nil || tokenFile != nil { throw ValidationError("--token needs --whip") }
            if caFile != nil { throw ValidationError("--ca-file needs --whip") }
            _ = try stream.requiredPeer
        }
    }

    @OptionGroup(title: "Logging") var logging: LoggingOptions

    func run() async throws {
        let signals = CommandServices.watchSignals()
        let (source, isPattern) = try self.source.open(patternSize: stream.encoding.patternSize)
        let token = try control.readToken()
        var configuration = try stream.configuration(
            sourceWidth: isPattern ? nil : source.width, sourceHeight: isPattern ? nil : source.height,
            sourceFrameRate: source.nativeFrameRate, publishing: whip != nil)
        configuration.localPort = localPort
        if let startBitrate { configuration.startBitrate = startBitrate.bps }
        if let simulcast {
            configuration.simulcast = SimulcastEncoding.standard(
                width: configuration.encoder.width, height: configuration.encoder.height, count: simulcast)
            guard configuration.simulcast.allSatisfy({ $0.layer.width >= 16 && $0.layer.height >= 16 }) else {
                throw ValidationError("--simulcast \(simulcast): the smallest layer of \(configuration.encoder.width)x\(configuration.encoder.height) is under 16x16")
            }
        }
        if asFastAsPossible { configuration.pacingFactor = nil }  // faster than real time: nothing to pace
        if stream.peer?.host.contains(":") == true { configuration.localHost = "::" }
        let annexB = try saveAnnexB.map { try OutputFile(path: $0) }
        let statsFile = try stats.map { try OutputFile(path: $0, privateToOwner: true) }
        if let annexB {
            configuration.frameObserver = { frame, _ in annexB.write(frame.bytes) }
        }

        var publisher: WHIPPublisher?
        let sender: H264Sender
        if let whip {
            var whipConfiguration = WHIPConfiguration(url: whip, token: try readWHIPToken())
            whipConfiguration.caFile = caFile
            whipConfiguration.requestTimeout = .seconds(10)
            whipConfiguration.iceServers = try ice.servers()
            let published = try await WHIPPublisher(configuration: configuration, whip: whipConfiguration)
            publisher = published
            sender = published.sender
            if !quiet {
                let milliseconds = Double(published.connectDuration.components.attoseconds) / 1e15
                    + Double(published.connectDuration.components.seconds) * 1000
                let gathered = published.gatheredCandidates.isEmpty ? "" : " and " + published.gatheredCandidates.joined(separator: ", ")
                let selected = published.relayServer.map { "\(published.localAddress) (relay via \($0))" } ?? published.localAddress
                FileHandle.standardError.write(Data((
                    "published to \(whip): session \(published.session.resourceURL); "
                        + "\(published.localCandidates.count) host candidates\(gathered); ICE \(selected) -> "
                        + "\(published.remoteAddress), DTLS-SRTP \(published.suite), connected "
                        + String(format: "%.0f", milliseconds) + " ms after the answer\n").utf8))
                for problem in published.iceServerProblems {
                    FileHandle.standardError.write(Data("ICE server not used: \(problem)\n".utf8))
                }
                // The endpoint's STUN/TURN servers (Link headers, RFC 9725 section 4.6), credentials redacted.
                for line in published.session.iceServerLines {
                    FileHandle.standardError.write(Data((line + "\n").utf8))
                }
            }
        } else {
            sender = try await H264Sender(configuration: configuration)
        }
        if let sdp {
            let description = configuration.sessionDescription(
                parameterSets: try configuration.probeParameterSets(), ssrc: sender.ssrc, rtxSSRC: sender.rtxSSRC,
                fecSSRC: sender.fecSSRC)
            try PrivateFile.write(description.serialize(), to: sdp)
        }
        let quiet = self.quiet
        // ICE restarts of a WHIP publish (an address change, consent checks unanswered), one line each.
        let restartLines = Task {
            guard let publisher else { return }
            for await event in publisher.events where !quiet {
                switch event {
                case .iceRestarted(let reason, let local, let remote, let duration):
                    let milliseconds = (duration / .milliseconds(1)).rounded()
                    FileHandle.standardError.write(Data(
                        "ICE restarted (\(reason)): \(local) -> \(remote), media back \(Int(milliseconds)) ms after it began\n".utf8))
                case .iceRestartFailed(let reason, let error):
                    FileHandle.standardError.write(Data("ICE restart failed (\(reason)): \(error)\n".utf8))
                }
            }
        }
        // Every report, the final one last: progress lines and the stats file (which so ends with the totals).
        let reporting = Task {
            for await stats in sender.reports {
                if !quiet { FileHandle.standardError.write(Data((ProgressLine.format(stats) + "\n").utf8)) }
                if let statsFile, let line = try? JSONLine.encode(stats) { statsFile.write(Array(line.utf8)) }
            }
        }
        let controlServer: ControlServer?
        do {
            controlServer = try await control.start(target: sender, token: token, tls: tls.configuration, quiet: quiet)
        } catch {
            _ = try? await sender.finish()
            throw error
        }
        let pump = FramePump(
            source: source, sender: sender, pacing: asFastAsPossible ? .asFastAsPossible : .realTime,
            frameLimit: self.source.frames, durationLimit: self.source.duration.map { .seconds($0) })
        // The control endpoint, then the frame source: the end of the source, its failure or SIGINT/SIGTERM shut
        // them down in reverse order; the sender (or the WHIP publisher) finishes after them, below.
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = []
        if let controlServer { services.append(.init(service: controlServer)) }
        services.append(.init(
            service: FramePumpService(pump: pump) { _ in }, successTerminationBehavior: .gracefullyShutdownGroup,
            failureTerminationBehavior: .gracefullyShutdownGroup))
        var sourceError: Error?
        do {
            try await CommandServices.run(services, signals: signals)
        } catch {
            sourceError = error
        }
        let final: SenderStats
        if let publisher {
            do {
                final = try await publisher.finish()
            } catch {
                if let failure = publisher.deleteFailure {
                    FileHandle.standardError.write(Data("rtc-h264: also, ending the WHIP session failed: \(failure)\n".utf8))
                }
                throw error
            }
        } else {
            final = try await sender.finish()
        }
        await reporting.value
        await restartLines.value
        await controlServer?.close()
        annexB?.close()
        statsFile?.close()
        if let sourceError { throw sourceError }
        if !quiet {
            FileHandle.standardError.write(Data(ProgressLine.summary(final).utf8))
        }
    }

    /// The WHIP bearer token from --token or --token-file.
    func readWHIPToken() throws -> String? {
        try BearerTokenOption.read(token, file: tokenFile, fileOption: "--token-file")
    }
}

extension SendCommand: LoggingCommand {}
