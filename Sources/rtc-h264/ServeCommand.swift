import ArgumentParser
import ServiceLifecycle
import Codec
import Control
import Dispatch
import Foundation
import MediaTime
import RTP
import Sender
import Synchronization
import Video
import WHEP

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the test pattern or a Y4M input to browsers over WebRTC (a WHEP endpoint and a viewer page).",
        discussion: """
            Open http://HOST:PORT/ in a browser to watch; any WHEP player can POST its offer to http://HOST:PORT/whep. \
            One encoder is shared by every viewer; each viewer has its own UDP socket (on HOST, advertised as the \
            ICE candidate), ICE agent (ICE-lite, or full with --ice-server) and DTLS-SRTP keys. A viewer's PLI/FIR asks the shared encoder for an IDR \
            (at most one per --keyframe-throttle), its NACKs are answered from its own packet history, and the \
            bitrate follows the weakest viewer's REMB and loss (never above --bitrate, or the bitrate set through \
            --control). A joining viewer starts at an IDR. At most --max-viewers at once (then 503). Binding \
            beyond loopback requires --token (the page takes it as http://HOST:PORT/#token=...). After --frames/--duration or the end of a file the server \
            keeps its viewers (no new frames) until SIGINT/SIGTERM, which ends every viewer (RTCP BYE, DTLS \
            close_notify) and exits; a second signal ends it at once. Prints viewers joining and leaving and one progress line per second on stderr.
            --control HOST:PORT starts the control endpoint (as for send; loopback unless --control-token or \
            --control-token-file): `rtc-h264 control bitrate RATE` sets the operator's bitrate, a ceiling the \
            viewers' estimates cannot raise the encoder above; keyframe asks for an IDR for every viewer (409 when \
            none is watching); framerate, degradation-preference and stats (the server's and every viewer's) as for \
            send.
            --tls-cert PEM --tls-key PEM serve HTTPS (TLS 1.2+) on --whep and --control: open https://HOST:PORT/ \
            (a certificate or key that cannot be used is an error at start-up).
            Behind a NAT or a firewall that viewers cannot cross, --ice-server stun:HOST and --ice-server turn:HOST \
            (with --ice-username and --ice-credential-file; ?transport=tcp or turns: where UDP is blocked) give each \
            viewer a full ICE agent whose answer also carries the server-reflexive and relayed candidates, gathered \
            from its own socket before the answer (--ice-gathering-timeout at most); each viewer holds its own TURN \
            allocation, released when it leaves.
            Example: rtc-h264 serve --whep 127.0.0.1:8080   then open http://127.0.0.1:8080/
            Example: rtc-h264 serve --whep 127.0.0.1:8080 --control 127.0.0.1:8090   then rtc-h264 control --to 127.0.0.1:8090 bitrate 800k
            Example: rtc-h264 serve --whep 10.0.0.5:8080 --token-file token --ice-server turn:turn.example.net \
            --ice-username robot --ice-credential-file turn.password
            """
    )

    @Option(name: .customLong("whep"), help: "Serve WHEP and the viewer page on HOST:PORT (an IP literal; loopback unless --token).")
    var whep: HostPort

    @OptionGroup var encoding: EncoderOptions

    @OptionGroup var source: SourceOptions

    @Option(help: "Bearer token POST and DELETE must carry (required beyond loopback; never printed).")
    var token: String?

    @Option(name: .customLong("token-file"), help: "A file holding the bearer token.")
    var tokenFile: String?

    @OptionGroup var control: ControlEndpointOptions

    @OptionGroup var tls: TLSServerOptions

    @Option(name: .customLong("max-viewers"), help: "Most viewers at once, connected or connecting (1-\(WHEPServer.Options.maximumViewerLimit)).")
    var maxViewers: Int = 8

    @Option(help: "The IP written in the answers' ICE candidate (default: the --whep host; required when it is 0.0.0.0 or ::).")
    var advertise: String?

    @OptionGroup(title: "ICE servers (a server behind a NAT or a firewall)") var ice: ICEServerOptions

    @Option(name: .customLong("ca-file"), help: "PEM file of CA certificates to trust for turns: --ice-server(s), in addition to the system's trust store.")
    var caFile: String?

    @Option(name: .customLong("ice-gathering-timeout"), help: "Seconds a viewer's gathering from the --ice-server(s) may take before its answer goes without the missing candidates (0.1-10).")
    var iceGatheringTimeout: Double = 3

    @Option(name: .customLong("allow-origin"), help: "The Access-Control-Allow-Origin value for WHEP players on other origins.")
    var allowOrigin: String = "*"

    @Option(name: .customLong("connect-timeout"), help: "Seconds a viewer may take from its answer to ICE and DTLS done (1-300).")
    var connectTimeout: Double = 15

    @OptionGroup var policy: SenderPolicyOptions

    @Flag(name: .customLong("no-rtx"), help: "Retransmit on the media SSRC even when the viewer offers RTX (RFC 4588).")
    var noRTX = false

    @Flag(help: "Protect each viewer that offers flexfec-03 (Chromium does) with FlexFEC on top of NACK: as much as that viewer's reported loss and round trip ask (none on a loss-free path), inside its target.")
    var fec = false

    @Option(help: ArgumentHelp(
        "Encode N simulcast layers (2 or 3: full, half and quarter --size), and send each viewer the highest its own estimate carries.",
        discussion: "A viewer starts at 300 kbit/s on a low layer and probes up; it moves to another layer at that layer's next keyframe (asked for when it decides), up once its estimate has covered 1.2 times the layer's minimum for 2 s (at 1280x720 the minimums are 150k for 640x360 and 600k for 1280x720), down once it has been under the current one's for 1 s (at once under half of it). Each layer's encoder follows the weakest viewer on that layer; a layer nobody watches encodes nothing.",
        valueName: "n"))
    var simulcast: Int?

    @Option(help: "RTCP CNAME.")
    var cname: String = "rtc-h264"

    @Option(name: .customLong("save-annexb"), help: "Also write every frame encoded (what each viewer is sent from its first keyframe on), as Annex-B, to this file.")
    var saveAnnexB: String?

    @Option(help: "Write the server's and every viewer's statistics to this file as JSON lines, once a second (a new file is created readable by its owner only).")
    var stats: String?

    @Flag(help: "No progress lines.")
    var quiet = false

    func validate() throws {
        if token != nil && tokenFile != nil { throw ValidationError("give --token or --token-file, not both") }
        try ice.check()
        guard iceGatheringTimeout.isFinite, (0.1...10).contains(iceGatheringTimeout) else {
            throw ValidationError("--ice-gathering-timeout must be 0.1-10 seconds")
        }
        if caFile != nil, !ice.iceServers.contains(where: { $0.lowercased().hasPrefix("turns:") }) {
            throw ValidationError("--ca-file is for turns: --ice-server(s), and none is given")
        }
        guard (1...WHEPServer.Options.maximumViewerLimit).contains(maxViewers) else {
            throw ValidationError("--max-viewers must be 1-\(WHEPServer.Options.maximumViewerLimit)")
        }
        guard connectTimeout.isFinite, (1...300).contains(connectTimeout) else {
            throw ValidationError("--connect-timeout must be 1-300 seconds")
        }
        if let simulcast {
            guard (2...3).contains(simulcast) else { throw ValidationError("--simulcast must be 2 or 3, got \(simulcast)") }
            guard !fec else { throw ValidationError("--simulcast cannot be used with --fec") }
        }
        guard !cname.isEmpty, cname.utf8.count <= SenderConfiguration.maximumCNAMELength else {
            throw ValidationError("--cname must be 1-\(SenderConfiguration.maximumCNAMELength) bytes")
        }
        guard !allowOrigin.isEmpty, allowOrigin.utf8.count <= 1024,
              allowOrigin.unicodeScalars.allSatisfy({ (0x21...0x7e).contains($0.value) }) else {
            throw ValidationError("--allow-origin must be * or an origin like https://example.com")
        }
    }

    /// The stream's configuration (peer fields unused: each viewer has its own address and DTLS-derived keys).
    func streamConfiguration(sourceWidth: Int?, sourceHeight: Int?, sourceFrameRate: Double?) throws -> SenderConfiguration {
        let encoder: EncoderConfiguration
        do {
            encoder = try encoding.configuration(
                sourceWidth: sourceWidth, sourceHeight: sourceHeight, sourceFrameRate: sourceFrameRate)
        } catch {
            throw ValidationError("\(error)")
        }
        var configuration = SenderConfiguration(peerHost: whep.host, peerPort: 9, encoder: encoder)
        policy.apply(to: &configuration, pacingFactor: 2.5)
        configuration.rtx = policy.noNACK || noRTX ? nil : .init(payloadType: PayloadType(97))  // the viewer's RTX PT is used
        configuration.fec = fec ? .init() : nil  // the viewer's flexfec-03 PT is used
        configuration.cname = cname
        if let simulcast {
            configuration.simulcast = SimulcastEncoding.standard(
                width: configuration.encoder.width, height: configuration.encoder.height, count: simulcast)
            guard configuration.simulcast.allSatisfy({ $0.layer.width >= 16 && $0.layer.height >= 16 }) else {
                throw ValidationError("--simulcast \(simulcast): the smallest layer of \(configuration.encoder.width)x\(configuration.encoder.height) is under 16x16")
            }
        }
        do {
            try configuration.validate()
        } catch {
            throw ValidationError("\(error)")
        }
        return configuration
    }

    @OptionGroup(title: "Logging") var logging: LoggingOptions

    func run() async throws {
        let signals = CommandServices.watchSignals()
        let (source, isPattern) = try self.source.open(patternSize: encoding.patternSize)
        var configuration = try streamConfiguration(
            sourceWidth: isPattern ? nil : source.width, sourceHeight: isPattern ? nil : source.height,
            sourceFrameRate: source.nativeFrameRate)
        let annexB = try saveAnnexB.map { try OutputFile(path: $0) }
        if let annexB { configuration.frameObserver = { frame, _ in annexB.write(frame.bytes) } }
        let controlToken = try control.readToken()
        var options = WHEPServer.Options(host: whep.host, port: whep.port, token: try readToken())
        options.maximumViewers = maxViewers
        options.advertisedHost = advertise
        options.allowedOrigin = allowOrigin
        options.connectTimeout = .milliseconds(Int64((connectTimeout * 1000).rounded()))
        options.tls = tls.configuration
        options.iceServers = try ice.servers()
        options.iceGatheringTimeout = .milliseconds(Int64((iceGatheringTimeout * 1000).rounded()))
        options.iceServerCAFile = caFile
        let statsFile = try stats.map { try OutputFile(path: $0, privateToOwner: true) }
        let server: WHEPServer
        do {
            server = try await WHEPServer(configuration: configuration, options: options)
        } catch let error as WHEPServerError {
            throw ValidationError("\(error)")
        } catch let error as TLSServerError {
            throw ValidationError("\(error)")
        }
        let quiet = self.quiet
        let log: @Sendable (String) -> Void = { line in
            if !quiet { FileHandle.standardError.write(Data((line + "\n").utf8)) }
        }
        log("WHEP endpoint on \(server.url)whep; watch at \(server.url)")
        let controlServer: ControlServer?
        do {
            controlServer = try await control.start(target: server, token: controlToken, tls: tls.configuration, quiet: quiet)
        } catch {
            await server.finish()
            throw error
        }
        let eventTask = Task {
            for await event in server.events {
                switch event {
                case .viewerJoined(let id, let remote): log("viewer \(id.prefix(8)) joined from \(remote)")
                case .viewerLeft(let id, let reason): log("viewer \(id.prefix(8)) left: \(reason)")
                }
            }
        }
        let started = ContinuousClock.now
        // A line a second; the last, with every viewer's final statistics, when the group shuts down (before the
        // server ends the viewers).
        let reporter = PeriodicService(interval: .seconds(1)) {
            let line = await Self.report(server: server, since: started)
            if let statsFile { statsFile.write(Array(line.json.utf8)) }
            log(line.progress)
        } final: {
            let line = await Self.report(server: server, since: started)
            if let statsFile {
                statsFile.write(Array(line.json.utf8))
                statsFile.close()
            }
        }
        let pump = FramePump(
            source: source, target: server.encoder, pacing: .realTime, frameLimit: self.source.frames,
            durationLimit: self.source.duration.map { .seconds($0) })
        // The server, the statistics, its control endpoint, then the frame source: SIGINT/SIGTERM stop them in
        // reverse order. The source ending on its own keeps the viewers served; the source failing shuts all down.
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [.init(service: server), .init(service: reporter)]
        if let controlServer { services.append(.init(service: controlServer)) }
        services.append(.init(
            service: FramePumpService(pump: pump) { pushed in
                log("source done after \(pushed) frames; serving the viewers until SIGINT/SIGTERM")
            },
            successTerminationBehavior: .ignore, failureTerminationBehavior: .gracefullyShutdownGroup))
        var sourceError: (any Error)?
        do {
            try await CommandServices.run(services, signals: signals)
        } catch {
            sourceError = error
        }
        await controlServer?.close()  // the group closed both already (or a cancellation cut it short): idempotent
        await server.finish()
        annexB?.close()
        await eventTask.value
        if let sourceError { throw sourceError }
        log("served \(server.framesEncoded) frames")
    }

    /// One line of statistics: the JSON for --stats and the progress line.
    static func report(server: WHEPServer, since start: ContinuousClock.Instant) async -> (json: String, progress: String) {
        let viewers = await server.viewers()
        let elapsed = (ContinuousClock.now - start).inSeconds
        let summary = ServeReport(
            timestamp: elapsed, viewers: viewers.count, framesEncoded: server.framesEncoded,
            operatorBitrate: server.operatorBitrate, appliedBitrate: server.appliedBitrate,
            viewerStats: viewers.map { ServeReport.Viewer(
                id: $0.id, remote: $0.remote, connected: $0.connected, localCandidateType: $0.localCandidateType,
                remoteCandidateType: $0.remoteCandidateType, relayProtocol: $0.relayProtocol, iceRestarts: $0.iceRestarts,
                trickledCandidates: $0.trickledCandidates, layer: $0.layer,
                layerSwitches: $0.layer == nil ? nil : $0.layerSwitches, stats: $0.sender) })
        let json = (try? JSONLine.encode(summary)) ?? "{}\n"
        let connected = viewers.filter(\.connected).count
        let progress = String(format: "%6.1fs", elapsed)
            + " viewers \(connected) connected (\(viewers.count) total), frames \(server.framesEncoded), "
            + "bitrate \(RateParser.format(bitrate: server.appliedBitrate))"
        return (json, progress)
    }

    /// The token from --token or --token-file.
    func readToken() throws -> String? {
        try BearerTokenOption.read(token, file: tokenFile, fileOption: "--token-file")
    }
}

extension ServeCommand: LoggingCommand {}
