import Codec
import H264
import RTP
import Testing
import TestSupport
import Video
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
        ("payload type 34", "invalid configuration: payload type must be a dynamic type (96-127), got 34"),
        ("peer port 0", "invalid configuration: peer port must be 1-65535, got 0"),
        ("peer port 70000", "invalid configuration: peer port must be 1-65535, got 70000"),
        ("local port -1", "invalid configuration: local port must be 0-65534, got -1"),
        ("first sequence 40000", "invalid configuration: first sequence number must be below 32768, got 40000"),
        ("mtu 70000", "invalid configuration: MTU must be 200-65000, got 70000"),
        ("mtu -5", "invalid configuration: MTU must be 200-65000, got -5"),
        ("mode 0 mtu 400", "invalid configuration: MTU 400 leaves 360 bytes of RTP payload; packetization mode 0 needs at least 420 per NAL unit"),
        ("cname 256", "invalid configuration: CNAME must be 1-255 bytes of UTF-8, got 256"),
        ("cname empty", "invalid configuration: CNAME must be 1-255 bytes of UTF-8, got 0"),
        ("throttle negative", "invalid configuration: keyframe throttle must be 0-3600 s, got -1.0 seconds"),
        ("throttle huge", "invalid configuration: keyframe throttle must be 0-3600 s, got 9.2"),
        ("report zero", "invalid configuration: report interval must be 10 ms-3600 s, got 0.0 seconds"),
        ("minimum bitrate 0", "invalid configuration: minimum bitrate must be 10000 bit/s to the target (500000 bit/s), got 0"),
        ("minimum bitrate above target", "invalid configuration: minimum bitrate must be 10000 bit/s to the target (500000 bit/s), got 600000"),
        ("frame rate 0", "invalid configuration: encoder: "),
        ("frame rate nan", "invalid configuration: encoder: "),
        ("failures 0", "invalid configuration: maximum consecutive frame failures must be 1-10000, got 0"),
        ("plain rtcp without srtp", "invalid configuration: accepting plain RTCP only makes sense with SRTP (RTCP is plain already)"),
        ("transport-cc id 0", "invalid configuration: transport-wide CC extension ID must be 1-14 (RFC 8285 one-byte form), got 0"),
        ("transport-cc id 15", "invalid configuration: transport-wide CC extension ID must be 1-14 (RFC 8285 one-byte form), got 15"),
        ("fec payload type 70", "invalid configuration: FEC payload type must be 35-63 or 96-127 and differ from the media's and RTX's, got 70"),
        ("fec payload type of rtx", "invalid configuration: FEC payload type must be 35-63 or 96-127 and differ from the media's and RTX's, got 97"),
        ("unknown host", "invalid address no.such.host.invalid:5004: "),
    ])
    func invalidConfigurationsFailBeforeAnythingStarts(name: String, message: String) async throws {
        var configuration = Self.base()
        switch name {
        case "payload type 34": configuration.payloadType = PayloadType(34)
        case "fec payload type 70": configuration.fec = SenderConfiguration.FEC(payloadType: PayloadType(70))
        case "fec payload type of rtx":
            configuration.rtx = SenderConfiguration.RTX(payloadType: PayloadType(97))
            configuration.fec = SenderConfiguration.FEC(payloadType: PayloadType(97))
        case "peer port 0": configuration.peerPort = 0
        case "peer port 70000": configuration.peerPort = 70_000
        case "local port -1": configuration.localPort = -1
        case "first sequence 40000": configuration.firstSequenceNumber = SequenceNumber(40_000)
        case "mtu 70000": configuration.mtu = 70_000
        case "mtu -5": configuration.mtu = -5
        case "mode 0 mtu 400":
            configuration.mtu = 400
            configuration.packetizationMode = .singleNALUnit
        case "cname 256": configuration.cname = String(repeating: "x", count: 256)
        case "cname empty": configuration.cname = ""
        case "throttle negative": configuration.keyframeThrottle = .seconds(-1)
        case "throttle huge": configuration.keyframeThrottle = .seconds(Int64.max)
        case "report zero": configuration.reportInterval = .zero
        case "minimum bitrate 0": configuration.minimumBitrate = 0
        case "minimum bitrate above target": configuration.minimumBitrate = 600_000
        case "frame rate 0": configuration.encoder.frameRate = 0
        case "frame rate nan": configuration.encoder.frameRate = .nan
        case "failures 0": configuration.maximumConsecutiveFrameFailures = 0
        case "plain rtcp without srtp": configuration.acceptPlainRTCP = true
        case "transport-cc id 0": configuration.transportWideCCExtensionID = 0
        case "transport-cc id 15": configuration.transportWideCCExtensionID = 15
        default: configuration.peerHost = "no.such.host.invalid"
        }
        do {
            _ = try await H264Sender(configuration: configuration)
            Issue.record("no error for \(name)")
        } catch let thrown as SenderError {
            #expect("\(thrown)".hasPrefix(message), "\(thrown)")
        }
    }

    @Test func anUnreachablePeerNeverStopsTheSender() async throws {
        // Nothing listens on the peer port: ICMP port unreachable comes back for every datagram.
        var configuration = Self.base()
        configuration.peerPort = try RawUDPSocket().port  // bound, then closed at once
        let sender = try await H264Sender(configuration: configuration)
        let pump = FramePump(source: try PatternSource(width: 320, height: 240), sender: sender, pacing: .asFastAsPossible, frameLimit: 20)
        _ = try await pump.run()
        let stats = try await sender.finish()
        #expect(stats.framesSent + stats.framesSkipped == 20)
        #expect(stats.packetsSent >= 15)
    }

    /// The transport-wide sequence number's element (RFC 8285 one-byte form: 4-byte block header, 1 + 2 bytes of
    /// element, 1 byte of padding) comes out of the payload; the SDP advertises the extension and the feedback.
    @Test func transportWideCCTakesEightBytesAndIsAdvertised() throws {
        var configuration = Self.base()
        let without = configuration.payloadLimit.maxPayloadSize
        #expect(configuration.sessionDescription(parameterSets: [], ssrc: nil).transportWideCCExtensionID == nil)
        #expect(!configuration.feedbackCapabilities.contains("transport-cc"))
        configuration.transportWideCCExtensionID = 3
        #expect(configuration.payloadLimit.maxPayloadSize == without - 8)
        #expect(configuration.headerExtension == RTPHeaderExtension(profile: 0xBEDE, data: [0x31, 0, 0, 0]))
        let text = configuration.sessionDescription(parameterSets: [], ssrc: nil).serialize()
        #expect(text.contains("a=rtcp-fb:96 transport-cc\r\n"))
        #expect(text.contains("a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01\r\n"))
    }

    @Test func sdpCarriesTheActualParameterSets() throws {
        var configuration = Self.base()
        configuration.encoder.profile = .high
        let sets = try configuration.probeParameterSets()
        #expect(sets.count == 2)
        #expect(sets[0].first.map { $0 & 0x1F } == 7)
        #expect(sets[1].first.map { $0 & 0x1F } == 8)
        let sdp = configuration.sessionDescription(parameterSets: sets, ssrc: SSRC(42))
        #expect(sdp.profileLevelID == "640c1f" || sdp.profileLevelID.hasPrefix("64"))
        #expect(sdp.serialize().contains("a=ssrc:42 cname:rtc-h264"))
    }

    /// The size an SPS names (after its cropping rectangle), as "WxH".
    static func spsSize(_ parameterSets: [[UInt8]]) throws -> String? {
        guard let sps = parameterSets.first(where: { $0.first.map { NALUnitHeader(byte: $0).type == .sps } ?? false })
        else { return nil }
        let parsed = try SequenceParameterSet(nalUnit: sps)
        return "\(parsed.width)x\(parsed.height)"
    }

    /// Regression: the probe encoded a flat black frame, whose resampling PSNR is infinite at every rung, so the
    /// adaptive encoder took it for a soft source and raised its floors 4x: at 1280x720, 30 fps, 1.5 Mbit/s the SDP's
    /// SPS named 640x360 while the stream (the test pattern, a sharp source) starts at 1280x720. The probe's SPS must
    /// name the size the real encoder's first IDR has; the cases span the start rungs of the bitrate ladder.
    @Test(arguments: [
        (1_500_000, DegradationPreference.maintainFramerate, "1280x720"),
        (600_000, DegradationPreference.maintainFramerate, "960x540"),
        (300_000, DegradationPreference.maintainFramerate, "640x360"),
        (300_000, DegradationPreference.maintainResolution, "1280x720"),
        (300_000, DegradationPreference.balanced, "960x540"),
    ])
    func probedParameterSetsNameTheSizeTheStreamStartsAt(
        bitrate: Int, preference: DegradationPreference, expected: String
    ) throws {
        var configuration = Self.base()
        configuration.encoder = EncoderConfiguration(width: 1280, height: 720, frameRate: 30, targetBitrate: bitrate)
        configuration.degradationPreference = preference
        let probed = try Self.spsSize(configuration.probeParameterSets())

        let encoder = try AdaptiveH264Encoder(configuration: configuration.sendingEncoderConfiguration,
                                              preference: preference)
        let first = try TestPattern(width: 1280, height: 720).frame(0)
        guard case .frame(let encoded, _) = try encoder.encode(.i420(first), timestamp: 0, now: .zero).output else {
            Issue.record("the first frame of the test pattern was not encoded")
            return
        }
        let streamed = try Self.spsSize(encoded.parameterSets.map { Array($0) })
        #expect(streamed == expected)
        #expect(probed == streamed)
    }
}
