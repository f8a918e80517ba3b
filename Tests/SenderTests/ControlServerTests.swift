import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing
@testable import Sender

@Suite struct ControlServerTests {
    @Test(arguments: [
        ("POST", "/bitrate", "{\"bitrate\":\"800k\"}", ControlCommand.setBitrate(800_000)),
        ("POST", "/bitrate", "{\"bitrate\":1200000}", ControlCommand.setBitrate(1_200_000)),
        ("POST", "/bitrate", "1.5M", ControlCommand.setBitrate(1_500_000)),
        ("POST", "/framerate", "{\"fps\":15}", ControlCommand.setFrameRate(15)),
        ("POST", "/framerate", "29.97", ControlCommand.setFrameRate(29.97)),
        ("POST", "/keyframe", "", ControlCommand.requestKeyframe),
        ("GET", "/stats", "", ControlCommand.stats),
        ("GET", "/stats?pretty", "", ControlCommand.stats),
    ])
    func wellFormedRequestsBecomeCommands(method: String, path: String, body: String, command: ControlCommand) {
        #expect(ControlServer.command(method: method, path: path, body: Array(body.utf8)) == .success(command))
    }

    @Test(arguments: [
        ("POST", "/nope", "", 404, "unknown path /nope; use /bitrate, /framerate, /keyframe or /stats"),
        ("GET", "/bitrate", "", 405, "/bitrate takes POST"),
        ("POST", "/stats", "", 405, "/stats takes GET"),
        ("POST", "/bitrate", "", 400, "missing body: send {\"bitrate\": ...}"),
        ("POST", "/bitrate", "{\"rate\":5}", 400, "missing \"bitrate\" in the JSON body"),
        ("POST", "/bitrate", "{bad json", 400, "body is not a JSON object of strings and numbers"),
        ("POST", "/bitrate", "fast", 400, "bitrate: 'fast' is not a rate (examples: 1.5M, 800k, 1500000)"),
        ("POST", "/bitrate", "{\"bitrate\":0}", 400, "bitrate: '0' must be greater than zero"),
        ("POST", "/framerate", "{\"fps\":-3}", 400, "framerate: '-3' must be greater than zero"),
    ])
    func badRequestsGetASpecificError(method: String, path: String, body: String, status: Int, message: String) {
        let result = ControlServer.command(method: method, path: path, body: Array(body.utf8))
        #expect(result == .failure(ControlReplyError(.error(status, message))))
    }

    @Test func clientAndServerTalkOverLoopback() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let received = NIOLockedValueBox<[ControlCommand]>([])
        let server = try await ControlServer(host: "127.0.0.1", port: 0, group: group) { command in
            received.withLockedValue { $0.append(command) }
            return group.next().makeSucceededFuture(command == .stats ? .ok(["\"framesEncoded\":3"]) : .ok())
        }
        let port = try #require(server.localAddress?.port)
        let reply = try await ControlClient.send(.setBitrate(800_000), host: "127.0.0.1", port: port, group: group)
        #expect(reply == ControlReply(status: 200, body: "{\"ok\":true}"))
        let stats = try await ControlClient.send(.stats, host: "127.0.0.1", port: port, group: group)
        #expect(stats.body == "{\"ok\":true,\"framesEncoded\":3}")
        #expect(received.withLockedValue { $0 } == [.setBitrate(800_000), .stats])
        await server.close()
        try await group.shutdownGracefully()
    }
}
