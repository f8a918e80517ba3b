import ArgumentParser

struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "demo", abstract: "Sender and receiver over loopback with SRTP: ten seconds of 720p30, a PLI, a bitrate change.")
    func run() async throws { throw CLIError("demo: not written yet") }
}
