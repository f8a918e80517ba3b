import ArgumentParser

struct EncodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "encode",
        abstract: "Encode a Y4M file or the test pattern to an Annex-B H.264 file."
    )

    func run() throws {
        throw ValidationError("encode: not implemented yet")
    }
}
