import ArgumentParser
import Foundation
import H264
import SDP
import SRTP
import Sender
import Video

struct ReceiveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "receive",
        abstract: "Receive, decrypt, reassemble and decode an H.264 RTP stream.",
        discussion: """
            Sends RTCP Receiver Reports about once a second and a PLI when it sees loss or an undecodable frame \
            (repeated until a keyframe arrives). Writes decoded frames as Y4M (output ending in .y4m) or the received \
            access units as Annex-B (any other name). Stops after --frames or --duration, when the sender says BYE, \
            or on SIGINT/SIGTERM, and prints what it received.
            Example: rtc-h264 receive --listen 127.0.0.1:5004 --sdp stream.sdp --output out.y4m
            """
    )

    @Option(help: "Address and RTP port to listen on, HOST:PORT.")
    var listen: HostPort

    @Option(help: "The sender's SDP (its a=crypto key, packetization, rtcp-mux).")
    var sdp: String?

    @Option(help: "SRTP master key and salt, base64 (when no --sdp).")
    var key: String?

    @Option(help: "SRTP suite (when no --sdp).")
    var suite: String = SRTPSuite.default.sdpName

    @Flag(name: .customLong("no-srtp"), help: "Plain RTP (when no --sdp).")
    var noSRTP = false

    @Flag(name: .customLong("no-rtcp-mux"), help: "RTCP on port+1 (when no --sdp).")
    var noRTCPMux = false

    @Option(help: "Write decoded frames (.y4m) or the received bitstream (.h264) here.")
    var output: String?

    @Option(help: "Stop after this many decoded frames.")
    var frames: Int?

    @Option(help: "Stop this many seconds after the first packet.")
    var duration: Double?

    @Option(name: .customLong("idle-timeout"), help: "Stop when no packet has arrived for this many seconds.")
    var idleTimeout: Double?

    @Flag(help: "Print the summary as JSON.")
    var json = false

    func validate() throws {
        if sdp == nil && key == nil && !noSRTP {
            throw ValidationError("give --sdp, --key (with --suite), or --no-srtp")
        }
        if sdp != nil && (key != nil || noSRTP) { throw ValidationError("--sdp already says how the stream is protected") }
    }

    func run() async throws {
        var configuration = ReceiverConfiguration(listenHost: listen.host, listenPort: listen.port)
        configuration.frameLimit = frames
        configuration.duration = duration
        configuration.idleTimeout = idleTimeout
        if let sdp {
            let text: String
            do { text = try String(contentsOfFile: sdp, encoding: .utf8) } catch {
                throw ValidationError("cannot read --sdp \(sdp): \(error.localizedDescription)")
            }
            let description = try SessionDescription(parsing: text)
            configuration.rtcpMux = description.rtcpMux
            if let crypto = description.crypto {
                guard let suite = SRTPSuite(sdpName: crypto.suite) else {
                    throw ValidationError("the SDP's crypto suite \(crypto.suite) is not supported")
                }
                let key = try SDESInlineKey(parsing: crypto.keyParameters, for: suite)
                configuration.security = .init(suite: suite, key: key.masterKey)
            }
        } else {
            configuration.rtcpMux = !noRTCPMux
            if !noSRTP, let key {
                guard let suite = SRTPSuite(sdpName: suite) else { throw ValidationError("unknown --suite \(suite)") }
                guard let bytes = Data(base64Encoded: key) else { throw ValidationError("--key is not valid base64") }
                configuration.security = .init(suite: suite, key: try SRTPMasterKey(keyAndSalt: [UInt8](bytes), for: suite))
            }
        }
        let receiver = try await H264Receiver(configuration: configuration)
        var writer: Y4MWriter?
        var annexB: OutputFile?
        if let output {
            if output.hasSuffix(".y4m") {
                receiver.onFrameDecoded = { picture, _ in
                    if writer == nil {
                        writer = try? Y4MWriter(path: output, header: Y4MHeader(width: picture.width, height: picture.height))
                    }
                    try? writer?.write(picture)
                }
            } else {
                let file = try OutputFile(path: output)
                annexB = file
                receiver.onAccessUnit = { received in file.write(received.frame.bytes) }
            }
        }
        let signals = SignalTrap { receiver.stop() }
        defer { signals.cancel() }
        let stats = try await receiver.run()
        annexB?.close()
        if json {
            print(try JSONLine.encode(stats), terminator: "")
        } else {
            print("""
                received \(stats.packetsReceived) packets (\(stats.packetsLost) lost), \(stats.framesReceived) frames; \
                decoded \(stats.framesDecoded) (\(stats.keyFramesDecoded) keyframes), dropped \(stats.framesDropped), \
                decode errors \(stats.decodeErrors), PLI sent \(stats.pliCount), SRTP failures \(stats.srtpUnprotectFailures), \
                malformed \(stats.malformedPackets)\(stats.byeReceived ? ", BYE received" : "")
                """)
        }
    }
}
