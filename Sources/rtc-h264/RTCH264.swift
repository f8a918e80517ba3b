import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif

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
        subcommands: [SendCommand.self, ServeCommand.self, ReceiveCommand.self, SDPCommand.self, ControlCLI.self, EncodeCommand.self, InspectCommand.self, DemoCommand.self]
    )

    /// Ignores SIGPIPE before running the command: an output FIFO whose reader goes away must end the command with an
    /// error (write(2) returns EPIPE), not kill the process; then the same as ArgumentParser's `main()`.
    static func main() async {
        signal(SIGPIPE, SIG_IGN)
        do {
            var command = try parseAsRoot()
            // Before anything logs: the library's loggers take the handler installed here.
            (command as? LoggingCommand)?.logging.bootstrap()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }
}
