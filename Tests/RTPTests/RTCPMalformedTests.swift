import Testing
@testable import RTP

/// Malformed RTCP, one specific error each.
@Suite struct RTCPMalformedTests {
    static let cases: [(String, [UInt8], RTCPError)] = [
        ("empty", [], .empty),
        ("header cut", hex("80C900"), .truncatedHeader(offset: 0)),
        ("second header cut", hex("80C90001 11223344 80"), .truncatedHeader(offset: 8)),
        ("version 1", hex("40C90001 11223344"), .unsupportedVersion(1, offset: 0)),
        ("version 3 in the second packet", hex("80C90001 11223344 C0C90001 11223344"), .unsupportedVersion(3, offset: 8)),
        ("length past the end", hex("80C90002 11223344"), .lengthExceedsBuffer(offset: 0, declared: 12, available: 8)),
        ("padding count zero", hex("A0C90001 11223300"), .invalidPadding(offset: 0, count: 0)),
        ("padding count too big", hex("A0C90001 11223309"), .invalidPadding(offset: 0, count: 9)),
        ("SR missing its report block", hex("81C80006 11223344 00000000 00000000 00000000 00000000 00000000"),
         .packetTooShort(packetType: 200, needed: 48, available: 24)),
        ("SR without sender info", hex("80C80001 11223344"), .packetTooShort(packetType: 200, needed: 24, available: 4)),
        ("RR missing its report block", hex("81C90001 11223344"), .packetTooShort(packetType: 201, needed: 28, available: 4)),
        ("RR without SSRC", hex("80C90000"), .packetTooShort(packetType: 201, needed: 4, available: 0)),
        ("SDES chunk without null item", hex("81CA0002 11223344 01024142"), .sdesChunkTruncated(offset: 12)),
        ("SDES item length overrun", hex("81CA0002 11223344 01094142"), .sdesChunkTruncated(offset: 8)),
        ("SDES second chunk missing", hex("82CA0002 11223344 01010000"), .sdesChunkTruncated(offset: 12)),
        ("BYE missing a source", hex("82CB0001 11223344"), .packetTooShort(packetType: 203, needed: 8, available: 4)),
        ("BYE reason overrun", hex("81CB0002 11223344 05616263"), .byeReasonOverrun(offset: 8)),
        ("PLI without media SSRC", hex("81CE0001 11223344"), .packetTooShort(packetType: 206, needed: 8, available: 4)),
        ("NACK without media SSRC", hex("81CD0001 11223344"), .packetTooShort(packetType: 205, needed: 8, available: 4)),
        ("NACK FCI cut by padding", hex("A1CD0003 11223344 55667788 00640002"),
         .invalidFCILength(packetType: 205, format: 1, length: 2)),
        ("FIR half an entry", hex("84CE0003 11223344 00000000 55667788"),
         .invalidFCILength(packetType: 206, format: 4, length: 4)),
        ("TMMBR half an entry", hex("83CD0003 11223344 00000000 55667788"),
         .invalidFCILength(packetType: 205, format: 3, length: 4)),
        ("TMMBN half an entry", hex("84CD0003 11223344 00000000 55667788"),
         .invalidFCILength(packetType: 205, format: 4, length: 4)),
        ("REMB with fewer SSRCs than declared", hex("8FCE0005 12345678 00000000 52454D42 0207FB93 23456789"),
         .rembSSRCCountMismatch(declared: 2, available: 1)),
    ]

    @Test(arguments: cases)
    func malformedRTCPFailsWithSpecificErrors(name: String, bytes: [UInt8], error: RTCPError) {
        #expect(throws: error, "\(name)") { try RTCPPacket.parseCompound(bytes) }
    }
}
