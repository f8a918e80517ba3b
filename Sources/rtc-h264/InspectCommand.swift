import ArgumentParser
import H264

struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "List the access units and parameter sets of an Annex-B H.264 stream."
    )

    @Argument(help: "An Annex-B file, or - for standard input.")
    var input: String

    func run() throws {
        throw ValidationError("inspect: not implemented yet")
    }
}
