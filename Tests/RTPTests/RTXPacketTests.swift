import Testing
@testable import RTP

/// RFC 4588 section 4: the RTX packet keeps the original's header (timestamp, marker, CSRCs, extensions), takes its
/// own SSRC, payload type and sequence number, and carries the original sequence number first in the payload.
@Suite struct RTXPacketTests {
    /// M=1, PT 96, seq 0x1234, ts 0x00015F90, SSRC 0x11223344, one-byte extension (ID 3, 2 bytes 0xABCD), payload
    /// 01 02 03 and 3 bytes of padding (P bit).
    static let original = hex("""
        B0E01234 00015F90 11223344 BEDE0001 31ABCD00 010203 0000 03
        """)

    @Test func buildIsByteExact() throws {
        let rtx = try RTXPacket.build(
            from: Self.original, ssrc: SSRC(0x5566_7788), payloadType: PayloadType(97), sequenceNumber: SequenceNumber(7))
        // P bit cleared, M kept with PT 97, own seq and SSRC, extension kept, OSN 0x1234 then the payload.
        #expect(rtx == hex("90E10007 00015F90 55667788 BEDE0001 31ABCD00 1234 010203"))
        #expect(try rtx.withUnsafeBytes { try RTXPacket.originalSequenceNumber(of: $0) } == SequenceNumber(0x1234))
    }

    @Test func restoreGivesTheOriginalWithoutPadding() throws {
        let rtx = try RTXPacket.build(
            from: Self.original, ssrc: SSRC(0x5566_7788), payloadType: PayloadType(97), sequenceNumber: SequenceNumber(7))
        let restored = try RTXPacket.restore(from: rtx, mediaSSRC: SSRC(0x1122_3344), payloadType: PayloadType(96))
        #expect(restored == hex("90E01234 00015F90 11223344 BEDE0001 31ABCD00 010203"))
        let view = try RTPPacketView(parsing: restored)
        #expect(view.header.sequenceNumber == SequenceNumber(0x1234))
        #expect(view.header.marker)
        #expect(Array(restored[view.payloadRange]) == [1, 2, 3])
    }

    @Test func buildIntoDirtyBufferWithTrailerAndCSRCs() throws {
        let header = RTPHeader(
            marker: false, payloadType: PayloadType(96), sequenceNumber: SequenceNumber(65535),
            timestamp: RTPTimestamp(1), ssrc: SSRC(1), csrcs: [SSRC(0xAABB_CCDD)])
        let original = try header.serializedPacket(payload: [9, 8])
        var buffer = [UInt8](repeating: 0xEE, count: 64)
        let written = try original.withUnsafeBytes { src in
            try buffer.withUnsafeMutableBytes { dst in
                try RTXPacket.build(
                    from: src, ssrc: SSRC(2), payloadType: PayloadType(97), sequenceNumber: SequenceNumber(0),
                    into: dst, reservedTrailer: 10)
            }
        }
        #expect(Array(buffer[0..<written]) == hex("81610000 00000001 00000002 AABBCCDD FFFF 0908"))
        #expect(buffer[written] == 0xEE)
    }

    @Test func errors() throws {
        var small = [UInt8](repeating: 0, count: 10)
        #expect(throws: RTXError.bufferTooSmall(needed: 25, available: 10)) {
            try Self.original.withUnsafeBytes { src in
                try small.withUnsafeMutableBytes { dst in
                    try RTXPacket.build(
                        from: src, ssrc: SSRC(2), payloadType: PayloadType(97), sequenceNumber: SequenceNumber(0), into: dst)
                }
            }
        }
        #expect(throws: RTXError.invalidRTP(.truncatedHeader(count: 3))) {
            try RTXPacket.build(from: [0x80, 0, 0], ssrc: SSRC(2), payloadType: PayloadType(97), sequenceNumber: SequenceNumber(0))
        }
        // An RTX packet with a 1-byte payload has no room for the OSN (e.g. a malformed padding probe).
        #expect(throws: RTXError.missingOriginalSequenceNumber(payloadSize: 1)) {
            try RTXPacket.restore(from: hex("80610001 00000001 00000002 AA"), mediaSSRC: SSRC(1), payloadType: PayloadType(96))
        }
        #expect(throws: RTXError.invalidRTP(.invalidPadding(count: 9, available: 2))) {
            try RTXPacket.restore(from: hex("A0610001 00000001 00000002 0009"), mediaSSRC: SSRC(1), payloadType: PayloadType(96))
        }
    }
}

/// draft-holmer-rmcat-transport-wide-cc-extensions-01 section 2: the 2-byte element, read and rewritten in place.
@Suite struct TransportSequenceNumberTests {
    @Test func writeInPlaceOneByteForm() throws {
        let ext = try RTPHeaderExtension.oneByte([
            RTPHeaderExtensionElement(id: 2, data: [0x55]),
            TransportSequenceNumber.element(id: 5, value: SequenceNumber(0)),
        ])
        let header = RTPHeader(
            payloadType: PayloadType(96), sequenceNumber: SequenceNumber(1), timestamp: RTPTimestamp(2), ssrc: SSRC(3),
            headerExtension: ext)
        var packet = try header.serializedPacket(payload: [0xAA])
        let found = try packet.withUnsafeMutableBytes { raw in
            try TransportSequenceNumber.write(SequenceNumber(0xBEEF), into: raw, id: 5)
        }
        #expect(found)
        #expect(packet == hex("90600001 00000002 00000003 BEDE0002 2055 51BEEF 000000 AA"))
        let read = try packet.withUnsafeBytes { try TransportSequenceNumber.read(from: $0, id: 5) }
        #expect(read == SequenceNumber(0xBEEF))
        let view = try RTPPacketView(parsing: packet)
        let element = try view.header.headerExtension!.elements().first { $0.id == 5 }!
        #expect(TransportSequenceNumber.value(of: element) == SequenceNumber(0xBEEF))
    }

    @Test func twoByteFormAndAbsentElement() throws {
        let ext = try RTPHeaderExtension.twoByte([TransportSequenceNumber.element(id: 200, value: SequenceNumber(0x0102))])
        let header = RTPHeader(
            payloadType: PayloadType(96), sequenceNumber: SequenceNumber(1), timestamp: RTPTimestamp(2), ssrc: SSRC(3),
            headerExtension: ext)
        var packet = try header.serializedPacket(payload: [])
        #expect(try packet.withUnsafeBytes { try TransportSequenceNumber.read(from: $0, id: 200) } == SequenceNumber(0x0102))
        #expect(try packet.withUnsafeBytes { try TransportSequenceNumber.read(from: $0, id: 3) } == nil)
        let wrote = try packet.withUnsafeMutableBytes { try TransportSequenceNumber.write(SequenceNumber(9), into: $0, id: 3) }
        #expect(!wrote)
        let plain = try RTPHeader(
            payloadType: PayloadType(96), sequenceNumber: SequenceNumber(1), timestamp: RTPTimestamp(2), ssrc: SSRC(3)
        ).serializedPacket(payload: [1])
        #expect(try plain.withUnsafeBytes { try TransportSequenceNumber.read(from: $0, id: 5) } == nil)
    }

    @Test func malformedElementIsAnError() {
        // One-byte form, element ID 5 claiming 16 bytes in a 4-byte block.
        let packet = hex("90600001 00000002 00000003 BEDE0001 5F000000")
        #expect(throws: RTPError.malformedExtensionElement(offset: 0)) {
            try packet.withUnsafeBytes { try TransportSequenceNumber.read(from: $0, id: 5) }
        }
    }
}
