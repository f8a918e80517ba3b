import H264
import Testing
import TestSupport
@testable import RTP

@Suite struct H264PacketizerTests {
    static let sps: [UInt8] = [0x67, 0x42, 0x00, 0x1F]
    static let pps: [UInt8] = [0x68, 0xCE, 0x3C, 0x80]

    @Test func stapACarriesParameterSetsAndSliceByteExact() throws {
        var p = try packetizer(maxPayload: 100)
        let idr = nal(0x65, size: 11)
        let packets = try p.packetize(frame([Self.sps, Self.pps, idr]), timestamp: RTPTimestamp(0x0102_0304))
        #expect(packets == [hex("""
            80 E0 03E8 01020304 11223344
            78 0004 6742001F 0004 68CE3C80 000B 65 0102030405060708090A
            """)])
        #expect(p.nextSequenceNumber == SequenceNumber(1001))
    }

    /// The two forms write the same bytes: into the reused `PacketBuffer`, and straight into the caller's buffers,
    /// with the same sequence numbers.
    @Test func bothFormsWriteTheSameBytes() throws {
        var intoBuffer = try packetizer(maxPayload: 40)
        var intoSlots = try packetizer(maxPayload: 40)
        let access = frame([Self.sps, Self.pps, nal(0x65, size: 90), nal(0x41, size: 7)])
        var buffer = intoBuffer.makePacketBuffer()
        var expected: [[UInt8]] = []
        try intoBuffer.packetize(access, timestamp: RTPTimestamp(7), into: &buffer) { expected.append(Array($0.bytes)) }
        var slots: [[UInt8]] = []
        var numbers: [SequenceNumber] = []
        var slot = [UInt8](repeating: 0xEE, count: intoSlots.limit.maxPacketSize)
        try intoSlots.packetize(access, timestamp: RTPTimestamp(7)) { sequenceNumber, write in
            let size = try slot.withUnsafeMutableBytes { try write($0) }
            slots.append(Array(slot[0..<size]))
            numbers.append(sequenceNumber)
        }
        #expect(expected.count > 3)
        #expect(slots == expected)
        #expect(numbers == expected.map { SequenceNumber(UInt16($0[2]) << 8 | UInt16($0[3])) })
        #expect(intoSlots.nextSequenceNumber == intoBuffer.nextSequenceNumber)
    }

    @Test func fuAFragmentsByteExact() throws {
        var p = try packetizer(maxPayload: 8)
        let packets = try p.packetize(frame([nal(0x65, size: 11)]), timestamp: RTPTimestamp(90000))
        #expect(packets == [
            hex("80 60 03E8 00015F90 11223344 7C 85 0102030405"),
            hex("80 E0 03E9 00015F90 11223344 7C 45 060708090A"),
        ])
    }

    @Test func fuAMiddleFragmentHasNeitherStartNorEnd() throws {
        var p = try packetizer(maxPayload: 5)
        let bodies = try payloads(try p.packetize(frame([nal(0x41, size: 8)]), timestamp: RTPTimestamp(0)))
        // 7 bytes, 3 per fragment -> 3 fragments of 3, 2, 2.
        #expect(bodies == [hex("5C 81 010203"), hex("5C 01 0405"), hex("5C 41 0607")])
    }

    @Test func nriAndForbiddenBitPropagate() throws {
        var p = try packetizer(maxPayload: 100)
        // NRI 0, 3, 1 aggregated: STAP-A NRI is the maximum (RFC 6184 section 5.7).
        let stap = try payloads(try p.packetize(
            frame([[0x06, 0xAA], [0x67, 0xBB], [0x21, 0xCC]]), timestamp: RTPTimestamp(0)))
        #expect(stap == [hex("78 0002 06AA 0002 67BB 0002 21CC")])
        // A forbidden bit in any aggregated unit sets the STAP-A F bit.
        let forbidden = try payloads(try p.packetize(frame([[0x86, 0xAA], [0x21, 0xCC]]), timestamp: RTPTimestamp(0)))
        #expect(forbidden == [hex("B8 0002 86AA 0002 21CC")])
        // FU indicator copies F and NRI; the FU header carries the type.
        var small = try packetizer(maxPayload: 4)
        let fu = try payloads(try small.packetize(frame([[0xC1, 1, 2, 3, 4]]), timestamp: RTPTimestamp(0)))
        #expect(fu == [hex("DC 81 0102"), hex("DC 41 0304")])
    }

    @Test func markerOnlyOnTheLastPacketOfEachAccessUnit() throws {
        var p = try packetizer(maxPayload: 50)
        let packets = try p.packetize(frame([Self.sps, Self.pps, nal(0x65, size: 200)]), timestamp: RTPTimestamp(0))
        let markers = try packets.map { try RTPPacketView(parsing: $0).header.marker }
        #expect(markers == Array(repeating: false, count: packets.count - 1) + [true])
    }

    @Test func sequenceNumbersWrap() throws {
        var p = try packetizer(maxPayload: 10, firstSequenceNumber: 65534)
        let packets = try p.packetize(frame([nal(0x65, size: 30)]), timestamp: RTPTimestamp(0))
        let numbers = try packets.map { try RTPPacketView(parsing: $0).header.sequenceNumber.rawValue }
        #expect(numbers == [65534, 65535, 0, 1])
        #expect(p.nextSequenceNumber == SequenceNumber(2))
    }

    @Test func singleNALUnitModeErrorsBeforeSendingAnything() throws {
        var p = try packetizer(maxPayload: 20, mode: .singleNALUnit)
        var buffer = p.makePacketBuffer()
        var emitted = 0
        #expect(throws: H264PayloadError.nalUnitTooLarge(size: 21, limit: 20)) {
            try p.packetize(frame([Self.sps, nal(0x65, size: 21)]), timestamp: RTPTimestamp(0), into: &buffer) { _ in
                emitted += 1
            }
        }
        #expect(emitted == 0)
        #expect(p.nextSequenceNumber == SequenceNumber(1000))
        let ok = try payloads(try p.packetize(frame([Self.sps, Self.pps]), timestamp: RTPTimestamp(0)))
        #expect(ok == [Self.sps, Self.pps])
    }

    @Test func reusesOneBufferWithRoomForTheSRTPTag() throws {
        var p = try H264Packetizer(
            ssrc: SSRC(1), payloadType: PayloadType(96), firstSequenceNumber: SequenceNumber(0))
        #expect(p.maxPayloadSize == 1150)
        var buffer = p.makePacketBuffer()
        #expect(buffer.capacity == 12 + 1150 + 10)
        #expect(buffer.reservedTrailer == 10)
        let base = buffer.storage.withUnsafeBytes { $0.baseAddress }
        var sizes: [Int] = []
        let count = try p.packetize(frame([nal(0x65, size: 5000)]), timestamp: RTPTimestamp(0), into: &buffer) { b in
            #expect(b.storage.withUnsafeBytes { $0.baseAddress } == base)
            #expect(b.count + b.reservedTrailer <= b.capacity)
            // Simulate in-place protection: append a 10-byte tag.
            b.withUnsafeMutableBytes { raw, length in
                for i in 0..<10 { raw[length + i] = 0xEE }
                length += 10
            }
            sizes.append(b.count)
        }
        #expect(count == 5)
        #expect(sizes.allSatisfy { $0 <= 12 + 1150 + 10 })
    }

    @Test func headerExtensionShrinksThePayloadAndIsWritten() throws {
        let ext = try RTPHeaderExtension.oneByte([RTPHeaderExtensionElement(id: 1, data: [7])])
        var p = try H264Packetizer(
            ssrc: SSRC(1), payloadType: PayloadType(96), firstSequenceNumber: SequenceNumber(0), ipVersion: .v6,
            headerExtension: ext)
        #expect(p.maxPayloadSize == 1200 - 40 - 8 - 12 - 8 - 10)
        let packet = try p.packetize(frame([Self.sps]), timestamp: RTPTimestamp(0))[0]
        #expect(try RTPPacketView(parsing: packet).header.headerExtension == ext)
    }

    @Test func tooSmallMTUIsRejected() {
        #expect(throws: H264PayloadError.payloadLimitTooSmall(2)) {
            try H264Packetizer(
                ssrc: SSRC(1), payloadType: PayloadType(96), firstSequenceNumber: SequenceNumber(0), mtu: 52)
        }
    }
}

@Suite struct H264PacketizerBufferReuseTests {
    @Test func aSmallPacketAfterALargeOneInTheSameDirtyBufferIsExact() throws {
        var p = try packetizer(maxPayload: 100)
        var buffer = p.makePacketBuffer()
        buffer.withUnsafeMutableBytes { raw, length in
            for i in 0..<raw.count { raw[i] = 0xAA }
            length = raw.count
        }
        var packets: [[UInt8]] = []
        try p.packetize(frame([nal(0x65, size: 300)]), timestamp: RTPTimestamp(1), into: &buffer) { packets.append(Array($0.bytes)) }
        try p.packetize(frame([[0x41, 0x07]]), timestamp: RTPTimestamp(2), into: &buffer) { packets.append(Array($0.bytes)) }
        #expect(packets.count == 5)
        #expect(packets.last == hex("80 E0 03EC 00000002 11223344 4107"))
        #expect(buffer.count == 14)
    }

    @Test func randomInitialSequenceNumbersStayBelow2To15() {
        var g = SplitMix64(seed: 1)
        for _ in 0..<1000 { #expect(SequenceNumber.randomInitial(using: &g).rawValue <= 0x7FFF) }
    }
}
