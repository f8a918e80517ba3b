import MediaTime
import Testing
@testable import RTP

/// Transport-wide feedback (draft-holmer-rmcat-transport-wide-cc-extensions-01 section 3.1). The byte vectors are
/// pion/rtcp's (`transport_layer_cc_test.go`, several captured from Chrome); our writer picks chunks the way
/// libwebrtc does, which gives the same bytes for those.
@Suite struct TransportFeedbackTests {
    static let a = SSRC(0xFA17_FA17)

    func check(_ feedback: TransportFeedback, _ expected: [UInt8], sourceLocation: SourceLocation = #_sourceLocation)
        throws
    {
        let packet = RTCPPacket.transportFeedback(feedback)
        #expect(try packet.serialized() == expected, sourceLocation: sourceLocation)
        #expect(packet.serializedSize == expected.count, sourceLocation: sourceLocation)
        #expect(try RTCPPacket.parseCompound(expected) == [packet], sourceLocation: sourceLocation)
    }

    @Test func oneSmallDeltaRunLength() throws {
        try check(
            TransportFeedback(
                senderSSRC: Self.a, mediaSSRC: SSRC(0x4303_2FA0), baseSequenceNumber: SequenceNumber(153),
                referenceTime: 0x3D_E802, feedbackPacketCount: 23, statuses: [.smallDelta(0x94)]),
            hex("AFCD0005 FA17FA17 43032FA0 00990001 3DE80217 20019401"))
    }

    @Test func sevenSmallDeltasRunLength() throws {
        try check(
            TransportFeedback(
                senderSSRC: Self.a, mediaSSRC: SSRC(0x193D_D8BB), baseSequenceNumber: SequenceNumber(4),
                referenceTime: 0x10_636E, feedbackPacketCount: 1,
                statuses: [0x4C, 0x24, 0x24, 0x10, 0x0C, 0x0C, 0x10].map { .smallDelta($0) }),
            hex("AFCD0007 FA17FA17 193DD8BB 00040007 10636E01 20074C24 24100C0C 10000003"))
    }

    @Test func oneBitStatusVector() throws {
        let n = TransportFeedbackPacketStatus.notReceived
        try check(
            TransportFeedback(
                senderSSRC: Self.a, mediaSSRC: SSRC(0x193D_D8BB), baseSequenceNumber: SequenceNumber(1),
                referenceTime: 0x10_636D, feedbackPacketCount: 0,
                statuses: [.smallDelta(0x10), .smallDelta(0x0C), .smallDelta(0x0C), n, .smallDelta(0x10)]
                    + Array(repeating: n, count: 9)),
            hex("AFCD0006 FA17FA17 193DD8BB 0001000E 10636D00 BA00100C 0C100002"))
        let s = TransportFeedbackPacketStatus.smallDelta
        try check(
            TransportFeedback(
                senderSSRC: Self.a, mediaSSRC: SSRC(0x4303_2FA0), baseSequenceNumber: SequenceNumber(39956),
                referenceTime: 0x75_8420, feedbackPacketCount: 0,
                statuses: [s(0xC1), s(0x3F), s(0x3B), s(0x3F), s(0x53), n, s(0x90), s(0x3B), n, n, n, n]),
            hex("AFCD0007 FA17FA17 43032FA0 9C14000C 75842000 BEC0C13F 3B3F5390 3B000003"))
    }

    /// Chrome's feedback: a two-bit vector with a large delta, then a run of 48 "not received" of which only two are
    /// inside the status count.
    @Test func parsesTwoBitVectorAndOverlongRun() throws {
        let packets = try RTCPPacket.parseCompound(hex("""
            AFCD0007 9B74F61F 9371DCBC 853C0009 63F916B3 D5520030 9BAA6AAA 7B010901
            """))
        let s = TransportFeedbackPacketStatus.smallDelta
        #expect(packets == [.transportFeedback(TransportFeedback(
            senderSSRC: SSRC(0x9B74_F61F), mediaSSRC: SSRC(0x9371_DCBC), baseSequenceNumber: SequenceNumber(0x853C),
            referenceTime: 0x63_F916, feedbackPacketCount: 0xB3,
            statuses: [s(0x9B), s(0xAA), s(0x6A), s(0xAA), s(0x7B), .notReceived, .largeDelta(0x0109), .notReceived,
                       .notReceived]))])
    }

    /// pion's vector sets the P bit but ends in 0x00 (no padding count, invalid under RFC 3550 section 6.4.1); here
    /// the P bit is cleared.
    @Test func parsesTwoRunLengthsOfLargeAndSmall() throws {
        let packets = try RTCPPacket.parseCompound(hex("""
            8FCD0007 FA17FA17 193DD8BB 01740006 45B15A40 40022004 1FFE1F9A D000D000
            """))
        guard case .transportFeedback(let feedback) = packets.first else { Issue.record("not parsed"); return }
        #expect(feedback.statuses == [.largeDelta(8190), .largeDelta(8090), .smallDelta(208), .smallDelta(0),
                                      .smallDelta(208), .smallDelta(0)])
        // Our writer packs the same six statuses into one two-bit vector: 10 10 01 01 01 01.
        #expect(try RTCPPacket.transportFeedback(feedback).serialized() == hex("""
            AFCD0007 FA17FA17 193DD8BB 01740006 45B15A40 E9541FFE 1F9AD000 D0000002
            """))
    }

    @Test func emptyFeedbackWithoutPadding() throws {
        try check(
            TransportFeedback(
                senderSSRC: SSRC(0x9ACB_0442), mediaSSRC: SSRC(0), baseSequenceNumber: SequenceNumber(0),
                referenceTime: 0, feedbackPacketCount: 0, statuses: []),
            hex("8FCD0004 9ACB0442 00000000 00000000 00000000"))
    }

    @Test func malformedInputs() {
        let cases: [(String, [UInt8], RTCPError)] = [
            ("three deltas announced, one present",
             hex("AFCD0005 FA17FA17 43032FA0 00990003 3DE80217 20039401"),
             .packetTooShort(packetType: 205, needed: 20, available: 19)),
            ("two large deltas announced, one byte present",
             hex("AFCD0005 FA17FA17 43032FA0 00990002 3DE80217 40029401"),
             .packetTooShort(packetType: 205, needed: 20, available: 19)),
            ("chunks missing", hex("8FCD0004 FA17FA17 43032FA0 00990001 3DE80217"),
             .packetTooShort(packetType: 205, needed: 18, available: 16)),
            ("fixed fields missing", hex("8FCD0003 FA17FA17 43032FA0 00990001"),
             .packetTooShort(packetType: 205, needed: 16, available: 12)),
            ("reserved two-bit symbol",
             hex("AFCD0006 FA17FA17 193DD8BB 0174000E 45B15A40 D800F0FF D0000003"),
             .reservedTransportFeedbackSymbol(offset: 22)),
            ("reserved run-length symbol",
             hex("8FCD0005 FA17FA17 193DD8BB 01740001 45B15A40 60010000"),
             .reservedTransportFeedbackSymbol(offset: 20)),
        ]
        for (name, bytes, error) in cases {
            #expect(throws: error, "\(name)") { try RTCPPacket.parseCompound(bytes) }
        }
    }

    @Test func serializeRejectsOutOfRangeFields() {
        var feedback = TransportFeedback(
            senderSSRC: Self.a, mediaSSRC: Self.a, baseSequenceNumber: SequenceNumber(0), referenceTime: 0x80_0000,
            feedbackPacketCount: 0, statuses: [])
        #expect(throws: RTCPError.valueOutOfRange(0x80_0000)) { try RTCPPacket.transportFeedback(feedback).serialized() }
        feedback.referenceTime = 0
        feedback.statuses = Array(repeating: .notReceived, count: 65536)
        #expect(throws: RTCPError.tooManyEntries(65536)) { try RTCPPacket.transportFeedback(feedback).serialized() }
    }

    /// A receiver builds feedback from arrival times; the sender reads back the same arrival differences (to 250 µs).
    @Test func buildFromArrivalsRoundTrips() throws {
        let ms: (Int64) -> MonotonicTime = { MonotonicTime(nanoseconds: $0 * 1_000_000) }
        var arrivals: [MonotonicTime?] = [ms(1000), ms(1001), nil, ms(1005), ms(1003)]  // the last one reordered
        arrivals += (0..<30).map { Optional(ms(1010 + Int64($0))) }  // a long run of small deltas
        arrivals.append(ms(1200))  // 160 ms later: a large delta
        let feedback = try TransportFeedback(
            senderSSRC: Self.a, mediaSSRC: SSRC(1), baseSequenceNumber: SequenceNumber(65530), feedbackPacketCount: 9,
            arrivals: arrivals)
        #expect(feedback.referenceTime == 15)  // 1000 ms / 64 ms
        #expect(feedback.statuses[0] == .smallDelta(160))  // 1000 - 960 ms = 40 ms
        #expect(feedback.statuses[4] == .largeDelta(-8))  // -2 ms
        #expect(feedback.statuses.last == .largeDelta(644))  // 161 ms after the previous
        let bytes = try RTCPPacket.transportFeedback(feedback).serialized()
        #expect(bytes.count % 4 == 0)
        #expect(try RTCPPacket.parseCompound(bytes) == [.transportFeedback(feedback)])
        let times = feedback.arrivalTimes
        #expect(times[0] == .milliseconds(1000))
        #expect(times[2] == nil)
        #expect(times[4] == .milliseconds(1003))
        #expect(times.last! == .milliseconds(1200))
    }

    @Test func deltasBeyondEightSecondsAreRejected() {
        let arrivals: [MonotonicTime?] = [MonotonicTime(nanoseconds: 0), MonotonicTime(nanoseconds: 9_000_000_000)]
        #expect(throws: RTCPError.valueOutOfRange(36000)) {
            try TransportFeedback(
                senderSSRC: Self.a, mediaSSRC: SSRC(1), baseSequenceNumber: SequenceNumber(0), feedbackPacketCount: 0,
                arrivals: arrivals)
        }
    }

    @Test func insideACompoundAfterAReceiverReport() throws {
        let feedback = TransportFeedback(
            senderSSRC: Self.a, mediaSSRC: SSRC(0x4303_2FA0), baseSequenceNumber: SequenceNumber(153),
            referenceTime: 0x3D_E802, feedbackPacketCount: 23, statuses: [.smallDelta(0x94)])
        let compound: [RTCPPacket] = [.receiverReport(ReceiverReport(ssrc: Self.a)), .transportFeedback(feedback)]
        #expect(try RTCPPacket.parseCompound(RTCPPacket.serialized(compound)) == compound)
    }
}
