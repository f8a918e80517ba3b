import Codec
import NIOPosix
import Testing
@testable import Sender

@Suite struct SenderConfigurationTests {
    static func base() -> SenderConfiguration {
        var c = SenderConfiguration(
            peerHost: "127.0.0.1", peerPort: 5004,
            encoder: EncoderConfiguration(width: 320, height: 240, frameRate: 30, targetBitrate: 500_000))
        c.localHost = "127.0.0.1"
        return c
    }

    @Test(arguments: [
        ("packetization-mode 2", SenderError.invalidConfiguration("packetization-mode must be 0 or 1, got 2")),
        ("payload type 34", SenderError.invalidConfiguration("payload type must be a dynamic type (96-127), got 34")),
        ("peer port 0", SenderError.invalidConfiguration("peer port must be 1-65535, got 0")),
        ("first sequence 40000", SenderError.invalidConfiguration("first sequence number must be below 32768, got 40000")),
        ("unknown host", SenderError.invalidAddress("no.such.host.invalid:5004", "")),
    ])
    func invalidConfigurationsFailBeforeAnythingStarts(name: String, error: SenderError) async throws {
        var configuration = Self.base()
        switch name {
        case "packetization-mode 2": configuration.packetizationMode = 2
        case "payload type 34": configuration.payloadType = 34
        case "peer port 0": configuration.peerPort = 0
        case "first sequence 40000": configuration.firstSequenceNumber = 40_000
        default: configuration.peerHost = "no.such.host.invalid"
        }
        do {
            _ = try await H264Sender(configuration: configuration, source: try PatternSource(width: 320, height: 240))
            Issue.record("no error for \(name)")
        } catch let thrown as SenderError {
            switch (thrown, error) {
            case (.invalidAddress(let a, _), .invalidAddress(let b, _)): #expect(a == b)
            default: #expect(thrown == error)
            }
        }
    }

    @Test func anUnreachablePeerNeverStopsTheSender() async throws {
        // Nothing listens on the peer port: ICMP port unreachable comes back for every datagram.
        var configuration = Self.base()
        let probe = try await DatagramEndpoint(host: "127.0.0.1", port: 0, eventLoop: MultiThreadedEventLoopGroup.singleton.next(),
                                               onDatagram: { _, _ in }, onError: { _ in })
        configuration.peerPort = probe.localAddress!.port!
        await probe.close()
        configuration.frameLimit = 20
        configuration.pacing = .asFastAsPossible
        let sender = try await H264Sender(configuration: configuration, source: try PatternSource(width: 320, height: 240))
        let stats = try await sender.run()
        #expect(stats.framesSent == 20)
        #expect(stats.packetsSent >= 20)
    }

    @Test func sdpCarriesTheActualParameterSets() throws {
        var configuration = Self.base()
        configuration.encoder.profile = .high
        let sets = try configuration.probeParameterSets()
        #expect(sets.count == 2)
        #expect(sets[0].first.map { $0 & 0x1F } == 7)
        #expect(sets[1].first.map { $0 & 0x1F } == 8)
        let sdp = configuration.sessionDescription(parameterSets: sets, ssrc: 42)
        #expect(sdp.profileLevelID == "640c1f" || sdp.profileLevelID.hasPrefix("64"))
        #expect(sdp.serialize().contains("a=ssrc:42 cname:rtc-h264"))
    }
}
