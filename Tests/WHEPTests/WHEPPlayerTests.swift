import Foundation
import Synchronization
import Receiver
import Testing
import TestSupport
import WHEP
import WHEPPlayer
import WHIP

/// Our WHEP client against our WHEP server, both real (HTTP, full ICE against ICE-lite, DTLS, SRTP, OpenH264) on
/// loopback.
@Suite(.serialized) struct WHEPPlayerTests {
    /// A player decodes the stream at its size, reports when its first frame came, and its DELETE ends the viewer.
    @Test(.timeLimit(.minutes(1)))
    func playsDecodesAndDeletesItsSession() async throws {
        let (server, pump) = try await WHEPTestSupport.start(.init(host: "127.0.0.1", port: 0))
        defer { pump.cancel() }
        let sizes = SizeLog()
        var configuration = ReceiverConfiguration(listenHost: "0.0.0.0", listenPort: 0)
        configuration.frameLimit = 30
        configuration.onFrameDecoded = { picture, _ in sizes.add(picture.width, picture.height) }
        let player = try await WHEPPlayer(configuration: configuration, whep: WHIPConfiguration(url: server.url + "whep"))
        #expect(await WHEPTestSupport.waitFor(seconds: 5) { server.viewerCount == 1 })
        let stats = try await player.run()
        #expect(stats.framesDecoded == 30)
        #expect(stats.keyFramesDecoded >= 1)
        #expect(stats.srtpUnprotectFailures == 0)
        #expect(sizes.all.allSatisfy { $0 == 320 && $1 == 240 } && sizes.all.count == 30)
        #expect(player.negotiated.format.payloadType == 96)
        #expect(player.negotiated.rtxPayloadType == 97)
        #expect(player.negotiated.transportCCExtensionID != nil)
        let first = try #require(player.offerToFirstFrame(stats))
        #expect(first > .zero && first < .seconds(5))
        #expect(player.transportCloseReason == nil)
        // The DELETE removed the viewer.
        #expect(await WHEPTestSupport.waitFor(seconds: 5) { server.viewerCount == 0 })
        await server.finish()
    }

    /// Without decoding, frames are still counted in order after the first keyframe, and several sessions play side
    /// by side.
    @Test(.timeLimit(.minutes(1)))
    func undecodedSessionsCountTheirFrames() async throws {
        let (server, pump) = try await WHEPTestSupport.start(.init(host: "127.0.0.1", port: 0))
        defer { pump.cancel() }
        var configuration = ReceiverConfiguration(listenHost: "0.0.0.0", listenPort: 0)
        configuration.frameLimit = 20
        configuration.decode = false
        configuration.onFrameDecoded = { _, _ in Issue.record("no picture without decoding") }
        let first = try await WHEPPlayer(configuration: configuration, whep: WHIPConfiguration(url: server.url + "whep"))
        let second = try await WHEPPlayer(configuration: configuration, whep: WHIPConfiguration(url: server.url + "whep"))
        #expect(await WHEPTestSupport.waitFor(seconds: 5) { server.viewerCount == 2 })
        async let a = first.run()
        async let b = second.run()
        let (statsA, statsB) = try await (a, b)
        for stats in [statsA, statsB] {
            #expect(stats.framesDecoded == 20)
            #expect(stats.keyFramesDecoded >= 1)
            #expect(stats.decodeErrors == 0)
        }
        #expect(await WHEPTestSupport.waitFor(seconds: 5) { server.viewerCount == 0 })
        await server.finish()
    }

    /// The server's BYE (it finishes) ends the player; the session is already gone, so the DELETE's 404 is no error.
    @Test(.timeLimit(.minutes(1)))
    func theServersEndEndsThePlayer() async throws {
        let (server, pump) = try await WHEPTestSupport.start(.init(host: "127.0.0.1", port: 0))
        let configuration = ReceiverConfiguration(listenHost: "0.0.0.0", listenPort: 0)
        let player = try await WHEPPlayer(configuration: configuration, whep: WHIPConfiguration(url: server.url + "whep"))
        #expect(await WHEPTestSupport.waitFor(seconds: 5) { await player.receiver.statistics().framesDecoded >= 5 })
        pump.cancel()
        await server.finish()
        let stats = try await player.run()
        #expect(stats.byeReceived || player.transportCloseReason != nil)
    }

    /// A refused offer is the endpoint's error, naming the status; nothing is left running.
    @Test(.timeLimit(.minutes(1)))
    func refusedOffersAreClearErrors() async throws {
        let (server, pump) = try await WHEPTestSupport.start(.init(host: "127.0.0.1", port: 0, token: "secret-token"))
        defer { pump.cancel() }
        let configuration = ReceiverConfiguration(listenHost: "0.0.0.0", listenPort: 0)
        await #expect {
            _ = try await WHEPPlayer(configuration: configuration, whep: WHIPConfiguration(url: server.url + "whep"))
        } throws: { error in
            guard case WHIPError.authenticationFailed(status: 401, _) = error else { return false }
            return true
        }
        await #expect {
            _ = try await WHEPPlayer(configuration: configuration, whep: WHIPConfiguration(url: server.url + "nothing", token: "secret-token"))
        } throws: { error in
            guard case WHIPError.httpStatus(status: 404, method: "POST", _) = error else { return false }
            return true
        }
        // With the token it plays.
        var limited = configuration
        limited.frameLimit = 5
        let player = try await WHEPPlayer(configuration: limited, whep: WHIPConfiguration(url: server.url + "whep", token: "secret-token"))
        #expect(try await player.run().framesDecoded == 5)
        #expect(await WHEPTestSupport.waitFor(seconds: 5) { server.viewerCount == 0 })
        await server.finish()
    }
}

/// Picture sizes seen on the receiver's loop.
private final class SizeLog: Sendable {
    private let sizes = Mutex<[(Int, Int)]>([])
    func add(_ width: Int, _ height: Int) { sizes.withLock { $0.append((width, height)) } }
    var all: [(Int, Int)] { sizes.withLock { $0 } }
}
