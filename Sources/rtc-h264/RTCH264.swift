import ArgumentParser

/// The `rtc-h264` command: a real-time H.264 sender (OpenH264 -> RFC 6184 RTP -> SRTP -> UDP) and its tools.
@main
struct RTCH264: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rtc-h264",
        abstract: "Real-time H.264 over RTP/SRTP: encode, packetize, protect, send, receive, inspect.",
        discussion: """
            Encodes raw video with OpenH264 the way WebRTC drives a hardware encoder (real-time, CBR, no B-frames, \
            Constrained Baseline or High at level 3.1), packetizes it per RFC 6184 and protects it with SRTP. \
            See Docs/Guide.md for examples.
            """,
        version: "0.1.0",
        subcommands: [SendCommand.self, ReceiveCommand.self, SDPCommand.self, ControlCLI.self, EncodeCommand.self, InspectCommand.self, DemoCommand.self]
    )
}
