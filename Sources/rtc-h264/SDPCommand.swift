import ArgumentParser
import RTP
import Sender
import Video

struct SDPCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sdp",
        abstract: "Print the SDP that `send` with the same options would write (start a receiver first).",
        discussion: """
            Give the same --key (or --key-file) and --ssrc as to `send`: without --ssrc the a=ssrc line is left out, \
            and without a key a random one is drawn and printed, which `send` must then be given.
            """
    )

    @OptionGroup var stream: StreamOptions

    @Option(help: "The Y4M input `send` will read (for its size and rate).")
    var input: String?

    func validate() throws {
        _ = try stream.requiredPeer
    }

    @OptionGroup(title: "Logging") var logging: LoggingOptions

    func run() throws {
        var width: Int?
        var height: Int?
        var rate: Double?
        if let input {
            let source = try Y4MSource(path: input)
            (width, height, rate) = (source.width, source.height, source.nativeFrameRate)
        }
        let configuration = try stream.configuration(sourceWidth: width, sourceHeight: height, sourceFrameRate: rate)
        let description = configuration.sessionDescription(
            parameterSets: try configuration.probeParameterSets(), ssrc: stream.ssrc.map { SSRC($0) })
        print(description.serialize(), terminator: "")
    }
}

extension SDPCommand: LoggingCommand {}
