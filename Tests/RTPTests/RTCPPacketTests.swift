import MediaTime
import Testing
@testable import RTP

/// Byte-exact layouts of every RTCP packet type; the expected bytes are written out from the RFC diagrams (or
/// taken from libwebrtc's unit tests where noted), then parsed back.
@Suite struct RTCPPacketTests {
    static let block = ReportBlock(
        ssrc: SSRC(0x5566_7788), fractionLost: 0x40, cumulativeLost: -2, extendedHighestSequenceNumber: 0x0001_0005,
        jitter: 0x20, lastSenderReport: 0xB705_2000, delaySinceLastSenderReport: 0x0005_4000)

    /// Serializes, compares with `expected`, parses back and compares with `packet`.
    func check(_ packet: RTCPPacket, _ expected: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(try packet.serialized() == expected, sourceLocation: sourceLocation)
        #expect(packet.serializedSize == expected.count, sourceLocation: sourceLocation)
        #expect(try RTCPPacket.parseCompound(expected) == [packet], sourceLocation: sourceLocation)
    }

    @Test func senderReportWithReportBlock() throws {
        let sr = SenderReport(
            ssrc: SSRC(0x1122_3344), ntpTimestamp: NTPTimestamp(seconds: 0xE123_4567, fraction: 0x8000_0000),
            rtpTimestamp: RTPTimestamp(90000), packetCount: 10, octetCount: 12000, reportBlocks: [Self.block])
        try check(.senderReport(sr), hex("""
            81C8000C 11223344 E1234567 80000000 00015F90 0000000A 00002EE0
            55667788 40FFFFFE 00010005 00000020 B7052000 00054000
            """))
    }

    @Test func receiverReportWithAndWithoutBlocks() throws {
        try check(.receiverReport(ReceiverReport(ssrc: SSRC(0x1122_3344), reportBlocks: [Self.block])), hex("""
            81C90007 11223344 55667788 40FFFFFE 00010005 00000020 B7052000 00054000
            """))
        try check(.receiverReport(ReceiverReport(ssrc: SSRC(0x1122_3344))), hex("80C90001 11223344"))
    }

    @Test func cumulativeLostIsClampedTo24BitsSigned() throws {
        var block = Self.block
        block.cumulativeLost = 0x0100_0000
        let bytes = try RTCPPacket.receiverReport(ReceiverReport(ssrc: SSRC(1), reportBlocks: [block])).serialized()
        #expect(Array(bytes[12..<16]) == hex("407FFFFF"))
    }

    @Test func sourceDescriptionCNAME() throws {
        try check(.sourceDescription(SourceDescription(chunks: [
            SourceDescriptionChunk(ssrc: SSRC(0x1122_3344), items: [.cname("hello")]),
        ])), hex("81CA0003 11223344 0105 68656C6C6F 00"))
        // Two chunks; the first ends exactly on a word boundary, so it gets a whole word of nulls.
        try check(.sourceDescription(SourceDescription(chunks: [
            SourceDescriptionChunk(ssrc: SSRC(1), items: [.cname("ab")]),
            SourceDescriptionChunk(ssrc: SSRC(2), items: [.cname("x"), SourceDescriptionItem(type: 6, text: "t")]),
        ])), hex("82CA0006 00000001 0102 6162 00000000 00000002 0101 78 0601 74 0000"))
    }

    @Test func goodbyeWithAndWithoutReason() throws {
        try check(.goodbye(Goodbye(sources: [SSRC(0x1122_3344)], reason: "bye")), hex("81CB0002 11223344 03 627965"))
        try check(.goodbye(Goodbye(sources: [SSRC(0x1122_3344)])), hex("81CB0001 11223344"))
        try check(.goodbye(Goodbye(sources: [SSRC(1), SSRC(2)], reason: "done")), hex("82CB0004 00000001 00000002 04 646F6E65 000000"))
    }

    @Test func genericNACKMatchesLibwebrtcVectors() throws {
        // libwebrtc modules/rtp_rtcp/source/rtcp_packet/nack_unittest.cc: kPacket with kList {0, 1, 3, 8, 16}.
        let nack = GenericNACK(
            senderSSRC: SSRC(0x1234_5678), mediaSSRC: SSRC(0x2345_6789), lost: [0, 1, 3, 8, 16].map { SequenceNumber($0) })
        try check(.nack(nack), hex("81CD0003 12345678 23456789 00008085"))
        #expect(nack.lostSequenceNumbers.map(\.rawValue) == [0, 1, 3, 8, 16])
        // Same file, kWrapPacket: a list crossing the sequence number wrap.
        let wrapList: [UInt16] = [0xFFDC, 0xFFEC, 0xFFFE, 0xFFFF, 0x0000, 0x0001, 0x0003, 0x0014, 0x0064]
        let wrap = GenericNACK(
            senderSSRC: SSRC(0x1234_5678), mediaSSRC: SSRC(0x2345_6789), lost: wrapList.map { SequenceNumber($0) })
        try check(.nack(wrap), hex("81CD0006 12345678 23456789 FFDC8000 FFFE0017 00140000 00640000"))
        #expect(wrap.lostSequenceNumbers.map(\.rawValue) == wrapList)
    }

    @Test func pictureLossIndication() throws {
        try check(.pli(PictureLossIndication(senderSSRC: SSRC(0x1122_3344), mediaSSRC: SSRC(0x5566_7788))),
                  hex("81CE0002 11223344 55667788"))
    }

    @Test func fullIntraRequest() throws {
        try check(.fir(FullIntraRequest(senderSSRC: SSRC(0x1122_3344), entries: [
            FullIntraRequestEntry(ssrc: SSRC(0x5566_7788), sequenceNumber: 7),
            FullIntraRequestEntry(ssrc: SSRC(0x99AA_BBCC), sequenceNumber: 255),
        ])), hex("84CE0006 11223344 00000000 55667788 07000000 99AABBCC FF000000"))
    }

    @Test func tmmbrAndTMMBN() throws {
        // 1 000 000 bps = 125000 * 2^3; overhead 40: 3 << 26 | 125000 << 9 | 40 = 0x0FD09028.
        let entry = TemporaryMaximumBitrateEntry(ssrc: SSRC(0x5566_7788), bitrate: 1_000_000, overhead: 40)
        try check(.tmmbr(TemporaryMaximumBitrateMessage(senderSSRC: SSRC(0x1122_3344), entries: [entry])),
                  hex("83CD0004 11223344 00000000 55667788 0FD09028"))
        try check(.tmmbn(TemporaryMaximumBitrateMessage(senderSSRC: SSRC(0x1122_3344), entries: [entry])),
                  hex("84CD0004 11223344 00000000 55667788 0FD09028"))
        try check(.tmmbn(TemporaryMaximumBitrateMessage(senderSSRC: SSRC(0x1122_3344), entries: [])),
                  hex("84CD0002 11223344 00000000"))
        // A bitrate that needs rounding keeps the encodable value; overhead saturates at 9 bits.
        let rounded = TemporaryMaximumBitrateEntry(ssrc: SSRC(1), bitrate: 131_073, overhead: 600)
        #expect(rounded.bitrate == 131_072 && rounded.overhead == 511)
    }

    @Test func rembMatchesLibwebrtcVector() throws {
        // libwebrtc modules/rtp_rtcp/source/rtcp_packet/remb_unittest.cc: kPacket, bitrate 0x3fb93 * 2.
        let remb = ReceiverEstimatedMaximumBitrate(
            senderSSRC: SSRC(0x1234_5678), bitrate: 0x3FB93 * 2,
            ssrcs: [SSRC(0x2345_6789), SSRC(0x2345_678A), SSRC(0x2345_678B)])
        try check(.remb(remb), hex("8FCE0007 12345678 00000000 52454D42 0307FB93 23456789 2345678A 2345678B"))
        #expect(remb.bitrate == 522_022)
        // Same file: kBitrateBps64bit = 0x3fb93 << 30 (exponent 30).
        let big = ReceiverEstimatedMaximumBitrate(senderSSRC: SSRC(1), bitrate: UInt64(0x3FB93) << 30, ssrcs: [])
        #expect(big.bitrate == UInt64(0x3FB93) << 30)
        #expect(try RTCPPacket.remb(big).serialized()[16..<20] == hex("007BFB93")[...])
    }

    @Test func unknownTypesAreSkippedByLengthAndKeptRaw() throws {
        // APP (PT 204) and an ECN feedback (PT 205 FMT 8, RFC 6679) between known packets.
        let bytes = hex("80C90001 11223344  80CC0002 11223344 6E616D65  88CD0003 11223344 55667788 00010002  81CE0002 11223344 55667788")
        let packets = try RTCPPacket.parseCompound(bytes)
        #expect(packets == [
            .receiverReport(ReceiverReport(ssrc: SSRC(0x1122_3344))),
            .unknown(UnknownRTCPPacket(packetType: 204, countOrFormat: 0, body: hex("11223344 6E616D65"))),
            .unknown(UnknownRTCPPacket(packetType: 205, countOrFormat: 8, body: hex("11223344 55667788 00010002"))),
            .pli(PictureLossIndication(senderSSRC: SSRC(0x1122_3344), mediaSSRC: SSRC(0x5566_7788))),
        ])
        #expect(try RTCPPacket.serialized(packets) == bytes)
        // A PSFB FMT 15 without the 'REMB' identifier is unknown too.
        #expect(try RTCPPacket.parseCompound(hex("8FCE0004 00000001 00000000 4C4E5446 00000000"))
                == [.unknown(UnknownRTCPPacket(packetType: 206, countOrFormat: 15, body: hex("00000001 00000000 4C4E5446 00000000")))])
    }

    @Test func paddingIsRemovedFromTheLastPacket() throws {
        // RR followed by 4 bytes of padding (count 4).
        #expect(try RTCPPacket.parseCompound(hex("A0C90002 11223344 00000004")) == [.receiverReport(ReceiverReport(ssrc: SSRC(0x1122_3344)))])
    }

    @Test func compoundSerializesIntoCleanAndDirtyBuffersWithTrailerRoom() throws {
        let packets: [RTCPPacket] = [
            .receiverReport(ReceiverReport(ssrc: SSRC(0x1122_3344))),
            .sourceDescription(SourceDescription(chunks: [SourceDescriptionChunk(ssrc: SSRC(0x1122_3344), items: [.cname("hello")])])),
            .pli(PictureLossIndication(senderSSRC: SSRC(0x1122_3344), mediaSSRC: SSRC(0x5566_7788))),
        ]
        let expected = hex("80C90001 11223344  81CA0003 11223344 0105 68656C6C6F 00  81CE0002 11223344 55667788")
        for fill: UInt8 in [0x00, 0xAA] {
            var buffer = [UInt8](repeating: fill, count: 3 + expected.count + 14)
            let n = try RTCPPacket.serialize(packets, into: &buffer, at: 3, reservedTrailer: 14)
            #expect(n == expected.count)
            #expect(Array(buffer[3..<(3 + n)]) == expected)
            #expect(buffer[..<3].allSatisfy { $0 == fill } && buffer[(3 + n)...].allSatisfy { $0 == fill })
        }
        var small = [UInt8](repeating: 0, count: expected.count + 13)
        #expect(throws: RTCPError.bufferTooSmall(needed: expected.count + 14, available: expected.count + 13)) {
            try RTCPPacket.serialize(packets, into: &small, reservedTrailer: 14)
        }
    }

    @Test func serializationRejectsFieldsThatDoNotFit() {
        let many = Array(repeating: Self.block, count: 32)
        #expect(throws: RTCPError.tooManyEntries(32)) {
            try RTCPPacket.receiverReport(ReceiverReport(ssrc: SSRC(1), reportBlocks: many)).serialized()
        }
        let long = SourceDescriptionItem(type: 1, value: Array(repeating: 0x41, count: 256))
        #expect(throws: RTCPError.sdesItemLength(type: 1, length: 256)) {
            try RTCPPacket.sourceDescription(SourceDescription(chunks: [SourceDescriptionChunk(ssrc: SSRC(1), items: [long])])).serialized()
        }
        #expect(throws: RTCPError.valueOutOfRange(3)) {
            try RTCPPacket.unknown(UnknownRTCPPacket(packetType: 204, countOrFormat: 0, body: [1, 2, 3])).serialized()
        }
    }
}

@Suite struct RTCPDemultiplexingTests {
    @Test func rtcpMuxDemultiplexingLooksAtTheSecondByte() {
        #expect(RTCPPacket.isMultiplexedRTCP(hex("80C9 0001")[...]))
        #expect(RTCPPacket.isMultiplexedRTCP(hex("81CE 0002")[...]))
        #expect(!RTCPPacket.isMultiplexedRTCP(hex("80E0 0001")[...]))  // RTP, M=1, PT 96
        #expect(!RTCPPacket.isMultiplexedRTCP(hex("8060 0001")[...]))
        #expect(!RTCPPacket.isMultiplexedRTCP([0x80][...]))
    }
}
