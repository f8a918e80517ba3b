import ArgumentParser

struct ReceiveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "receive", abstract: "Receive, decrypt, reassemble and decode an H.264 RTP stream.")
    func run() async throws { throw CLIError("receive: not written yet") }
}
