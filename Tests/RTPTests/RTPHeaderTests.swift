import Testing
@testable import RTP

@Suite struct RTPHeaderTests {
    let basic = RTPHeader(
        marker: true, payloadType: PayloadType(96), sequenceNumber: SequenceNumber(0x1234),
        timestamp: RTPTimestamp(0xDEAD_BEEF), ssrc: SSRC(0x1122_3344))

    @Test func serializesFixedHeaderByteExact() throws {
        let packet = try basic.serializedPacket(payload: [0xCA, 0xFE])
        #expect(packet == hex("80 E0 1234 DEADBEEF 11223344 CAFE"))
    }

    @Test func serializesCSRCsOneByteExtensionAndPadding() throws {
        var header = basic
        header.marker = false
        header.csrcs = [SSRC(0xAABB_CCDD)]
        header.headerExtension = try .oneByte([RTPHeaderExtensionElement(id: 1, data: [0x42])])
        let packet = try header.serializedPacket(payload: [0xCA, 0xFE], paddingLength: 3)
        #expect(packet == hex("B1 60 1234 DEADBEEF 11223344 AABBCCDD BEDE0001 10420000 CAFE 000003"))
        let view = try RTPPacketView(parsing: packet)
        #expect(view.header == header)
        #expect(view.paddingLength == 3)
        #expect(Array(packet[view.payloadRange]) == [0xCA, 0xFE])
        #expect(try view.header.headerExtension?.elements() == [RTPHeaderExtensionElement(id: 1, data: [0x42])])
    }

    @Test func twoByteExtensionRoundTrips() throws {
        var header = basic
        header.headerExtension = try .twoByte(
            [RTPHeaderExtensionElement(id: 3, data: [1, 2]), RTPHeaderExtensionElement(id: 200, data: [])], appBits: 5)
        let packet = try header.serializedPacket(payload: [0x09])
        #expect(packet == hex("90 E0 1234 DEADBEEF 11223344 10050002 03020102 C8000000 09"))
        let view = try RTPPacketView(parsing: packet)
        #expect(view.header.headerExtension?.isTwoByteForm == true)
        #expect(view.header.headerExtension?.appBits == 5)
        #expect(
            try view.header.headerExtension?.elements()
                == [RTPHeaderExtensionElement(id: 3, data: [1, 2]), RTPHeaderExtensionElement(id: 200, data: [])])
    }

    @Test func oneByteParsingSkipsPaddingAndStopsAtID15() throws {
        let ext = RTPHeaderExtension(profile: 0xBEDE, data: [0x00, 0x21, 0xAA, 0xBB, 0xF0, 0x11, 0x00, 0x00])
        #expect(try ext.elements() == [RTPHeaderExtensionElement(id: 2, data: [0xAA, 0xBB])])
    }

    @Test(arguments: [
        (RTPHeaderExtensionElement(id: 0, data: [1]), RTPError.extensionElementOutOfRange(id: 0, length: 1)),
        (RTPHeaderExtensionElement(id: 15, data: [1]), RTPError.extensionElementOutOfRange(id: 15, length: 1)),
        (RTPHeaderExtensionElement(id: 1, data: []), RTPError.extensionElementOutOfRange(id: 1, length: 0)),
        (RTPHeaderExtensionElement(id: 1, data: Array(repeating: 0, count: 17)),
         RTPError.extensionElementOutOfRange(id: 1, length: 17)),
    ])
    func oneByteFormRejectsOutOfRangeElements(element: RTPHeaderExtensionElement, error: RTPError) {
        #expect(throws: error) { try RTPHeaderExtension.oneByte([element]) }
    }

    @Test func malformedExtensionElementIsSpecific() {
        let ext = RTPHeaderExtension(profile: 0xBEDE, data: [0x13, 0xAA, 0x00, 0x00])
        // ID 1, L=3 (4 bytes) starting at offset 0 needs 5 bytes; only 4.
        #expect(throws: RTPError.malformedExtensionElement(offset: 0)) { try ext.elements() }
    }

    static let malformed: [(String, [UInt8], RTPError)] = [
        ("empty", [], .truncatedHeader(count: 0)),
        ("eleven bytes", hex("80 60 0001 00000000 000000"), .truncatedHeader(count: 11)),
        ("version 1", hex("40 60 0001 00000000 00000000"), .unsupportedVersion(1)),
        ("version 0", hex("00 60 0001 00000000 00000000"), .unsupportedVersion(0)),
        ("CSRC list cut", hex("82 60 0001 00000000 00000000 00000001"), .truncatedCSRCList(csrcCount: 2, available: 4)),
        ("extension header cut", hex("90 60 0001 00000000 00000000 BEDE"),
         .truncatedHeaderExtension(declaredBytes: 4, available: 2)),
        ("extension data cut", hex("90 60 0001 00000000 00000000 BEDE0002 10AA0000"),
         .truncatedHeaderExtension(declaredBytes: 12, available: 8)),
        ("padding count zero", hex("A0 60 0001 00000000 00000000 AA00"), .invalidPadding(count: 0, available: 2)),
        ("padding count too big", hex("A0 60 0001 00000000 00000000 AA03"), .invalidPadding(count: 3, available: 2)),
        ("padding bit without bytes", hex("A0 60 0001 00000000 00000000"), .invalidPadding(count: 0, available: 0)),
    ]

    @Test(arguments: malformed)
    func malformedPacketsFailWithSpecificErrors(name: String, bytes: [UInt8], error: RTPError) {
        #expect(throws: error, "\(name)") { try RTPPacketView(parsing: bytes) }
    }

    @Test func serializesIntoCleanAndDirtyBuffersLeavingTrailerRoom() throws {
        let expected = hex("80 E0 1234 DEADBEEF 11223344 CAFE")
        for fill: UInt8 in [0x00, 0xAA] {
            var buffer = [UInt8](repeating: fill, count: 4 + expected.count + 10 + 3)
            let n = try basic.serializePacket(payload: [0xCA, 0xFE], into: &buffer, at: 4, reservedTrailer: 10)
            #expect(n == expected.count)
            #expect(Array(buffer[4..<(4 + n)]) == expected)
            #expect(buffer[0..<4].allSatisfy { $0 == fill })
            #expect(buffer[(4 + n)...].allSatisfy { $0 == fill })
        }
    }

    @Test func bufferTooSmallCountsTheTrailer() {
        var buffer = [UInt8](repeating: 0, count: 14 + 9)
        #expect(throws: RTPError.bufferTooSmall(needed: 24, available: 23)) {
            try basic.serializePacket(payload: [0xCA, 0xFE], into: &buffer, reservedTrailer: 10)
        }
        var tooMany = basic
        tooMany.csrcs = Array(repeating: SSRC(1), count: 16)
        #expect(throws: RTPError.tooManyCSRCs(16)) { try tooMany.serializedPacket(payload: []) }
        #expect(throws: RTPError.paddingOutOfRange(256)) { try basic.serializedPacket(payload: [], paddingLength: 256) }
    }

    @Test func sliceParsingReportsRangesInSliceIndices() throws {
        let bytes = [0xFF, 0xFF] + hex("80 60 0001 00000000 00000000 0102")
        let view = try RTPPacketView(parsing: bytes[2...])
        #expect(view.payloadRange == 14..<16)
        #expect(Array(bytes[view.payloadRange]) == [1, 2])
    }
}
