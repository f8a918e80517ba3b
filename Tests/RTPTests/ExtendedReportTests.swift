import MediaTime
import Testing
@testable import RTP

/// RTCP XR (RFC 3611): the Receiver Reference Time and DLRR blocks byte for byte (from the RFC's diagrams), an
/// unknown block kept raw, and blocks that lie about their length refused with the field named.
@Suite struct ExtendedReportTests {
    func check(_ packet: RTCPPacket, _ expected: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(try packet.serialized() == expected, sourceLocation: sourceLocation)
        #expect(packet.serializedSize == expected.count, sourceLocation: sourceLocation)
        #expect(try RTCPPacket.parseCompound(expected) == [packet], sourceLocation: sourceLocation)
    }

    @Test func receiverReferenceTime() throws {
        let xr = ExtendedReport(
            ssrc: SSRC(0x1122_3344),
            blocks: [.receiverReferenceTime(NTPTimestamp(seconds: 0xE123_4567, fraction: 0x8000_0000))])
        try check(.extendedReport(xr), hex("80CF0004 11223344 04000002 E1234567 80000000"))
    }

    @Test func dlrrWithTwoSubBlocksAndAnUnknownBlock() throws {
        let xr = ExtendedReport(ssrc: SSRC(0x0102_0304), blocks: [
            .delaySinceLastReceiverReport([
                .init(ssrc: SSRC(0x1122_3344), lastReceiverReport: 0x4567_8000, delaySinceLastReceiverReport: 0x0001_8000),
                .init(ssrc: SSRC(0x5566_7788), lastReceiverReport: 0x0000_0001, delaySinceLastReceiverReport: 0),
            ]),
            .other(blockType: 6, typeSpecific: 0x1F, body: hex("DEADBEEF")),
        ])
        try check(.extendedReport(xr), hex("""
            80CF000A 01020304 05000006 11223344 45678000 00018000 55667788 00000001 00000000 061F0001 DEADBEEF
            """))
    }

    @Test func anXRInACompoundAfterAReceiverReport() throws {
        let bytes = hex("80C90001 11223344 80CF0004 11223344 04000002 00000001 00010000")
        let packets = try RTCPPacket.parseCompound(bytes)
        #expect(packets.count == 2)
        guard case .extendedReport(let xr) = packets[1], case .receiverReferenceTime(let time) = xr.blocks.first else {
            Issue.record("no RRTR in \(packets)")
            return
        }
        #expect(time.middle32 == 0x0001_0001)
    }

    @Test(arguments: [
        // A block header cut off after the SSRC.
        ("80CF0002 11223344 0400", RTCPError.lengthExceedsBuffer(offset: 0, declared: 12, available: 10)),
        // An RRTR of no words.
        ("80CF0002 11223344 04000000", .extendedReportBlockLength(blockType: 4, length: 0)),
        // An RRTR that says 3 words.
        ("80CF0005 11223344 04000003 00000001 00000002 00000003", .extendedReportBlockLength(blockType: 4, length: 12)),
        // A DLRR of 2 words (not a multiple of 12 bytes).
        ("80CF0004 11223344 05000002 00000001 00000002", .extendedReportBlockLength(blockType: 5, length: 8)),
        // A block announcing more words than the packet holds.
        ("80CF0003 11223344 04000009 00000001", .extendedReportBlockOverrun(offset: 8)),
        // An XR without its SSRC.
        ("80CF0000", .packetTooShort(packetType: 207, needed: 4, available: 0)),
    ] as [(String, RTCPError)])
    func blocksThatLieAreRefused(bytes: String, expected: RTCPError) {
        do {
            let packets = try RTCPPacket.parseCompound(hex(bytes))
            Issue.record("accepted as \(packets); expected \(expected)")
        } catch {
            #expect("\(error)" == "\(expected)")
        }
    }
}
