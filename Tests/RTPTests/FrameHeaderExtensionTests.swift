import H264
import MediaTime
@testable import RTP
import Testing

/// Issue 25, items 1 and 2: `abs-capture-time` and `playout-delay` element bytes, and where the packetizer writes
/// them (capture time on a frame's first packet, playout delay on every packet, after the transport-wide number).
@Suite struct FrameHeaderExtensionTests {
    static let captureTime = NTPTimestamp(seconds: 0xE875_4700, fraction: 0x8000_0001)

    @Test func absoluteCaptureTimeShortAndLongFormsAreBigEndian() throws {
        let short = AbsoluteCaptureTime(captureTimestamp: Self.captureTime).element(id: 4)
        #expect(short == RTPHeaderExtensionElement(id: 4, data: hex("E8754700 80000001")))
        let long = AbsoluteCaptureTime(captureTimestamp: Self.captureTime, estimatedCaptureClockOffset: -2)
        #expect(long.element(id: 4).data == hex("E8754700 80000001 FFFFFFFF FFFFFFFE"))
        for bytes in [short.data, long.element(id: 4).data] {
            let decoded = bytes.withUnsafeBytes { AbsoluteCaptureTime(data: $0) }
            #expect(decoded?.captureTimestamp == Self.captureTime)
        }
        #expect(long.element(id: 4).data.withUnsafeBytes { AbsoluteCaptureTime(data: $0) } == long)
    }

    @Test(arguments: [0, 1, 7, 9, 15, 17, 255])
    func absoluteCaptureTimeOfAnotherLengthIsNotRead(length: Int) {
        let bytes = [UInt8](repeating: 0xFF, count: length)
        #expect(bytes.withUnsafeBytes { AbsoluteCaptureTime(data: $0) } == nil)
    }

    @Test func playoutDelayPacksTwelveBitsEach() throws {
        let delay = try #require(PlayoutDelay(minimumMilliseconds: 100, maximumMilliseconds: 40950))
        #expect(delay.element(id: 5) == RTPHeaderExtensionElement(id: 5, data: hex("00AFFF")))
        #expect(try #require(PlayoutDelay(minimumMilliseconds: 0, maximumMilliseconds: 0)).element(id: 5).data == [0, 0, 0])
        // Rounded down to 10 ms, as libwebrtc writes it.
        let rounded = try #require(PlayoutDelay(minimumMilliseconds: 19, maximumMilliseconds: 29))
        #expect(rounded.minimum == 1 && rounded.maximum == 2)
        let decoded = hex("00AFFF").withUnsafeBytes { PlayoutDelay(data: $0) }
        #expect(decoded == delay && decoded?.minimumMilliseconds == 100 && decoded?.maximumMilliseconds == 40950)
    }

    static let badDelays: [(Int, Int)] = [(-10, 0), (0, 40951), (40960, 40960), (100, 50), (.min, .max), (.max, .max)]

    @Test(arguments: badDelays)
    func playoutDelayOutOfRangeIsRefused(minimum: Int, maximum: Int) {
        #expect(PlayoutDelay(minimumMilliseconds: minimum, maximumMilliseconds: maximum) == nil)
    }

    @Test func playoutDelayOfAnotherLengthOrMinimumAboveMaximumIsNotRead() {
        for bytes in [[], hex("00AF"), hex("00AFFF00"), hex("FFF001")] {
            #expect(bytes.withUnsafeBytes { PlayoutDelay(data: $0) } == nil, "\(bytes)")
        }
    }

    // MARK: The packetizer

    static let transportCC = try! RTPHeaderExtension.oneByte([TransportSequenceNumber.element(id: 3, value: SequenceNumber(0))])

    static func packetizer(ids: RTPPacketExtensionIDs = RTPPacketExtensionIDs(absoluteCaptureTime: 4, playoutDelay: 5))
        throws -> H264Packetizer
    {
        try H264Packetizer(
            ssrc: SSRC(0x0102_0304), payloadType: PayloadType(96), firstSequenceNumber: SequenceNumber(7),
            srtpTrailerSize: 0, headerExtension: transportCC, extensionIDs: ids)
    }

    static func packets(_ p: inout H264Packetizer, extensions: RTPPacketExtensions) throws -> [[UInt8]] {
        let access = frame([nal(0x65, size: 3000)])
        let writer = p
        var packets: [[UInt8]] = []
        try p.plan(access, timestamp: RTPTimestamp(90_000), extensions: extensions) { plan in
            var bytes = [UInt8](repeating: 0xAA, count: plan.size)  // a dirty buffer: every header byte is written
            let size = try bytes.withUnsafeMutableBytes { try writer.write(plan, of: access, into: $0) }
            packets.append(Array(bytes[0..<size]))
        }
        return packets
    }

    @Test func captureTimeOnTheFirstPacketPlayoutDelayOnEveryPacket() throws {
        var p = try Self.packetizer()
        // 12 + 4 + (3 + 9 + 4) = 32 bytes of header at most: the payload limit reserves them all.
        #expect(p.limit.rtpHeaderSize == 32)
        #expect(p.maxPayloadSize == 1200 - 20 - 8 - 32)
        let delay = try #require(PlayoutDelay(minimumMilliseconds: 0, maximumMilliseconds: 0))
        let packets = try Self.packets(
            &p, extensions: RTPPacketExtensions(
                absoluteCaptureTime: AbsoluteCaptureTime(captureTimestamp: Self.captureTime), playoutDelay: delay))
        #expect(packets.count == 3)
        #expect(Array(packets[0][0..<32]) == hex("""
            90 60 0007 00015F90 01020304
            BEDE 0004  31 0000  47 E8754700 80000001  52 000000
            """))
        for packet in packets.dropFirst() {
            #expect(Array(packet[12..<24]) == hex("BEDE 0002 31 0000 52 000000 00"))
            #expect(try RTPPacketView(parsing: packet).payloadRange.lowerBound == 24)
        }
        // The transport-wide number is still found and rewritten, next to the new elements.
        var first = packets[0]
        let rewritten = try first.withUnsafeMutableBytes {
            try TransportSequenceNumber.write(SequenceNumber(0x1234), into: $0, id: 3)
        }
        #expect(rewritten)
        let transport = first.withUnsafeBytes { try? TransportSequenceNumber.read(from: $0, id: 3) }
        let capture = first.withUnsafeBytes { try? AbsoluteCaptureTime.read(from: $0, id: 4) }
        let readDelay = first.withUnsafeBytes { try? PlayoutDelay.read(from: $0, id: 5) }
        #expect(transport == SequenceNumber(0x1234))
        #expect(capture?.captureTimestamp == Self.captureTime)
        #expect(readDelay == delay)
    }

    @Test func withoutValuesThePacketsAreAsBefore() throws {
        var p = try Self.packetizer()
        let packets = try Self.packets(&p, extensions: .none)
        for packet in packets { #expect(Array(packet[12..<20]) == hex("BEDE 0001 31 0000 00")) }
        // Values without a configured ID are left out.
        var bare = try Self.packetizer(ids: .none)
        #expect(bare.limit.rtpHeaderSize == 20)
        let plain = try Self.packets(&bare, extensions: RTPPacketExtensions(
            absoluteCaptureTime: AbsoluteCaptureTime(captureTimestamp: Self.captureTime)))
        #expect(Array(plain[0][12..<20]) == hex("BEDE 0001 31 0000 00"))
    }

    @Test func aPlanThatDoesNotMatchTheIDsIsRefused() throws {
        let p = try Self.packetizer(ids: RTPPacketExtensionIDs(playoutDelay: 5))
        let access = frame([nal(0x65, size: 100)])
        var plan = H264PacketPlan(
            sequenceNumber: SequenceNumber(1), timestamp: RTPTimestamp(0),
            payload: H264PayloadDescriptor(kind: .single(index: 0), size: 100, isLastOfAccessUnit: true), headerSize: 20,
            extensions: RTPPacketExtensions(absoluteCaptureTime: AbsoluteCaptureTime(captureTimestamp: Self.captureTime)))
        var buffer = [UInt8](repeating: 0, count: 200)
        #expect(throws: H264PayloadError.planDoesNotMatchFrame) {
            _ = try buffer.withUnsafeMutableBytes { try p.write(plan, of: access, into: $0) }
        }
        plan.extensions = RTPPacketExtensions.none
        let size = try buffer.withUnsafeMutableBytes { try p.write(plan, of: access, into: $0) }
        #expect(size == 120)
    }

    static let badIDs: [(RTPPacketExtensionIDs, RTPHeaderExtension?)] = [
        (RTPPacketExtensionIDs(absoluteCaptureTime: 0), nil),
        (RTPPacketExtensionIDs(absoluteCaptureTime: 15), nil),
        (RTPPacketExtensionIDs(playoutDelay: 200), nil),
        (RTPPacketExtensionIDs(absoluteCaptureTime: 4, playoutDelay: 4), nil),
        (RTPPacketExtensionIDs(absoluteCaptureTime: 3), transportCC),  // the transport-wide number's ID
        (RTPPacketExtensionIDs(playoutDelay: 5), try! RTPHeaderExtension.twoByte([RTPHeaderExtensionElement(id: 3, data: [0, 0])])),
    ]

    @Test(arguments: badIDs)
    func collidingOrOutOfRangeIDsAreRefused(ids: RTPPacketExtensionIDs, fixed: RTPHeaderExtension?) {
        #expect(throws: H264PayloadError.invalidExtensionIDs) {
            try H264Packetizer(
                ssrc: SSRC(1), payloadType: PayloadType(96), firstSequenceNumber: SequenceNumber(0),
                headerExtension: fixed, extensionIDs: ids)
        }
    }

    @Test func interpolationFollowsTheRTPClockBothWaysAndWraps() {
        let base = NTPTimestamp(seconds: 100, fraction: 0)
        let later = AbsoluteCaptureTime.interpolate(base, from: RTPTimestamp(0xFFFF_FFFF), to: RTPTimestamp(89_999))
        #expect(later == NTPTimestamp(seconds: 101, fraction: 0))  // 90,000 ticks across the 32-bit wrap
        let earlier = AbsoluteCaptureTime.interpolate(base, from: RTPTimestamp(45_000), to: RTPTimestamp(0))
        #expect(earlier == NTPTimestamp(seconds: 99, fraction: 0x8000_0000))
        #expect(AbsoluteCaptureTime.interpolate(base, from: RTPTimestamp(0), to: RTPTimestamp(0), clockRate: 0) == base)
    }
}
