import Testing
import TestSupport
@testable import RTP

/// FlexFEC-03 as libwebrtc writes and reads it: the header byte-exact (k bits end the mask, 20/24/32 bytes), the XOR
/// byte-exact, and recovery of every single loss per FEC packet, never of two.
@Suite struct FlexFECTests {
    /// An RTP packet of SSRC 0x11223344: seq, marker, the transport-wide sequence number (ID 3) `tcc`, and `size`
    /// payload bytes derived from the sequence number.
    static func media(_ sequenceNumber: UInt16, size: Int, marker: Bool = false, tcc: UInt16 = 0) -> [UInt8] {
        var packet: [UInt8] = [0x90, (marker ? 0x80 : 0) | 96, UInt8(sequenceNumber >> 8), UInt8(sequenceNumber & 0xFF),
                               0, 1, 0x5F, 0x90, 0x11, 0x22, 0x33, 0x44,
                               0xBE, 0xDE, 0, 1, 0x31, UInt8(tcc >> 8), UInt8(tcc & 0xFF), 0]
        for i in 0..<size { packet.append(UInt8(truncatingIfNeeded: Int(sequenceNumber) &* 31 &+ i &* 7)) }
        return packet
    }

    static func header(_ header: FlexFECHeader) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0xFF, count: header.size)
        try bytes.withUnsafeMutableBytes { try header.write(into: $0) }
        return bytes
    }

    @Test func shortMaskIsTwentyBytesWithKBitSet() throws {
        // Offsets 0, 2 and 4 (libwebrtc's random mask 0xA8 for 5 media, 2 FEC).
        let header = FlexFECHeader(
            protectedSSRC: SSRC(0x1122_3344), sequenceNumberBase: SequenceNumber(0x1234), maskLow: 0b10101)
        #expect(header.size == 20)
        // R and F cleared (the recovery fields are the caller's), SSRCCount 1, SSRC, base, k=1 and bits 14, 12, 10.
        #expect(try Self.header(header) == hex("3FFFFFFF FFFFFFFF 01000000 11223344 1234 D400"))
    }

    @Test func offsetFifteenNeedsTheSecondWord() throws {
        let header = FlexFECHeader(
            protectedSSRC: SSRC(1), sequenceNumberBase: SequenceNumber(7), maskLow: 1 << 15 | 1)
        #expect(header.size == 24)
        // k0 = 0 with bit 14 (offset 0); k1 = 1 with bit 30 (offset 15): libwebrtc's hdr[20] = 0x80 | 0x40.
        #expect(try Self.header(header) == hex("3FFFFFFF FFFFFFFF 01000000 00000001 0007 4000 C0000000"))
    }

    @Test func offsetFortySevenNeedsTheThirdWord() throws {
        let header = FlexFECHeader(protectedSSRC: SSRC(1), sequenceNumberBase: SequenceNumber(7), maskLow: 1 << 47 | 1 << 45)
        #expect(header.size == 32)
        // Offset 45 is bit 0 of the second word; offset 47 bit 61 of the third (libwebrtc hdr[24] = 0x80 | 0x20).
        #expect(try Self.header(header) == hex("3FFFFFFF FFFFFFFF 01000000 00000001 0007 0000 00000001 A0000000 00000000"))
    }

    @Test func everyMaskReadsBack() throws {
        var generator = SplitMix64(seed: 5)
        for _ in 0..<500 {
            let low = generator.next()
            let high = generator.next() & ((1 << 45) - 1)
            let header = FlexFECHeader(
                protectedSSRC: SSRC(UInt32(truncatingIfNeeded: generator.next())),
                sequenceNumberBase: SequenceNumber(UInt16(truncatingIfNeeded: generator.next())),
                maskLow: low >> (generator.next() % 64), maskHigh: generator.next() % 3 == 0 ? high : 0)
            guard header.protectedCount > 0 else { continue }
            let bytes = try Self.header(header)
            let read = try bytes.withUnsafeBytes { try FlexFECHeader(parsing: $0) }
            #expect(read == header)
        }
    }

    @Test func refusesWhatLibwebrtcRefuses() {
        func parse(_ bytes: [UInt8]) -> FlexFECError? {
            do {
                _ = try bytes.withUnsafeBytes { try FlexFECHeader(parsing: $0) }
                return nil
            } catch let error as FlexFECError { return error } catch { return nil }
        }
        let good = hex("00000000 00000000 01000000 11223344 1234 D400")
        #expect(parse(good) == nil)
        #expect(parse(Array(good[0..<19])) == .truncated(needed: 20, available: 19))
        var flagged = good
        flagged[0] = 0x40
        #expect(parse(flagged) == .unsupportedFlags(1))
        var twoSSRCs = good
        twoSSRCs[8] = 2
        #expect(parse(twoSSRCs) == .unsupportedSSRCCount(2))
        var empty = good
        empty[18] = 0x80
        empty[19] = 0
        #expect(parse(empty) == .emptyMask)
        // k0 = 0 announces 24 bytes; k1 = 0 announces 32; no k2 is an unterminated mask.
        var long = good
        long[18] = 0x54
        #expect(parse(long) == .truncated(needed: 24, available: 20))
        #expect(parse(long + [0, 0, 0, 0]) == .truncated(needed: 32, available: 24))
        #expect(parse(long + [UInt8](repeating: 0, count: 12)) == .unterminatedMask)
    }

    static func encoder(tcc: UInt8? = 3) -> FlexFECEncoder {
        FlexFECEncoder(
            protectedSSRC: SSRC(0x1122_3344), ssrc: SSRC(0xABCD), payloadType: PayloadType(49),
            firstSequenceNumber: SequenceNumber(100), maximumPacketSize: 1200, transportSequenceExtensionID: tcc)
    }

    @Test func oneProtectedPacketIsItsOwnXOR() throws {
        var encoder = Self.encoder()
        let packet = Self.media(0x0102, size: 3, marker: true, tcc: 0x7777)
        try packet.withUnsafeBytes { try encoder.add($0) }
        let built = encoder.encode(count: 1)
        #expect(built == 0..<1)  // carrying the packet's timestamp, 0x00015F90
        var out = [UInt8](repeating: 0, count: 1500)
        let size = try out.withUnsafeMutableBytes { try encoder.writePacket(0, into: $0) }
        #expect(size == encoder.packetSize(0))
        // RTP: X, PT 49, seq 100, the protected packet's timestamp, FEC SSRC, tcc element (ID 3) zero. Payload: byte 0 is the packet's
        // 0x90 with R/F cleared, M|PT, length 11 (8 extension + 3 payload), its timestamp, the header, then the
        // bytes after the fixed header with the tcc value zeroed.
        let expected = hex("90310064 00015F90 0000ABCD BEDE0001 31000000")
            + hex("10E0000B 00015F90 01000000 11223344 0102 C000")
            + hex("BEDE0001 31000000") + Array(packet[20...])
        #expect(Array(out[0..<size]) == expected)
    }

    /// Ten packets of mixed sizes, three FEC packets (media i in FEC i % 3): any one loss per FEC packet comes back
    /// byte-exact (the tcc value zeroed); two losses under one FEC packet do not.
    @Test func recoversOneLossPerFECPacket() throws {
        let packets = (0..<10).map { Self.media(UInt16(truncatingIfNeeded: 65530 + $0), size: 50 + $0 * 37, marker: $0 == 9, tcc: UInt16($0)) }
        var encoder = Self.encoder()
        for packet in packets { try packet.withUnsafeBytes { try encoder.add($0) } }
        let built = encoder.encode(count: 3)
        #expect(built.count == 3)
        let fecPackets = try built.map { index in
            var out = [UInt8](repeating: 0, count: 1500)
            let size = try out.withUnsafeMutableBytes { try encoder.writePacket(index, into: $0) }
            return Array(out[0..<size])
        }
        func zeroed(_ packet: [UInt8]) -> [UInt8] {
            var copy = packet
            copy[17] = 0
            copy[18] = 0
            return copy
        }
        // Lose 1 (FEC 1), 3 (FEC 0) and 8 (FEC 2): all three come back.
        var receiver = FlexFECReceiver(protectedSSRC: SSRC(0x1122_3344), transportSequenceExtensionID: 3)
        var recovered: [[UInt8]] = []
        for (i, packet) in packets.enumerated() where ![1, 3, 8].contains(i) {
            receiver.receivedMedia(packet) { recovered.append($0) }
        }
        for fec in fecPackets {
            let view = try RTPPacketView(parsing: fec)
            try fec.withUnsafeBytes { bytes in
                try receiver.receivedFEC(payload: UnsafeRawBufferPointer(rebasing: bytes[view.payloadRange])) {
                    recovered.append($0)
                }
            }
        }
        #expect(recovered.count == 3)
        #expect(Set(recovered) == Set([1, 3, 8].map { zeroed(packets[$0]) }))

        // Lose 0 and 3 (both under FEC 0): not recovered; 5 (FEC 2) is.
        var second = FlexFECReceiver(protectedSSRC: SSRC(0x1122_3344), transportSequenceExtensionID: 3)
        var got: [[UInt8]] = []
        for (i, packet) in packets.enumerated() where ![0, 3, 5].contains(i) {
            second.receivedMedia(packet) { got.append($0) }
        }
        for fec in fecPackets {
            let view = try RTPPacketView(parsing: fec)
            try fec.withUnsafeBytes { bytes in
                try second.receivedFEC(payload: UnsafeRawBufferPointer(rebasing: bytes[view.payloadRange])) { got.append($0) }
            }
        }
        #expect(got == [zeroed(packets[5])])
        // The late arrival of 0 leaves 3 alone under FEC 0: it comes back then.
        second.receivedMedia(packets[0]) { got.append($0) }
        #expect(got.count == 2)
        #expect(got.last == zeroed(packets[3]))
    }

    @Test func theBatchTakesOnlyTheNextPacketOfItsStream() throws {
        var encoder = Self.encoder()
        try Self.media(10, size: 5).withUnsafeBytes { try encoder.add($0) }
        #expect(throws: FlexFECError.batchRefused) { try Self.media(12, size: 5).withUnsafeBytes { try encoder.add($0) } }
        var other = Self.media(11, size: 5)
        other[11] = 0x45
        #expect(throws: FlexFECError.batchRefused) { try other.withUnsafeBytes { try encoder.add($0) } }
        #expect(throws: FlexFECError.batchRefused) { try Self.media(11, size: 1300).withUnsafeBytes { try encoder.add($0) } }
        try Self.media(11, size: 5).withUnsafeBytes { try encoder.add($0) }
        #expect(encoder.mediaCount == 2)
        for i in 2..<FlexFECEncoder.maximumMediaPackets {
            try Self.media(UInt16(10 + i), size: 5).withUnsafeBytes { try encoder.add($0) }
        }
        #expect(throws: FlexFECError.batchRefused) { try Self.media(58, size: 5).withUnsafeBytes { try encoder.add($0) } }
        // 48 packets, one FEC packet per two: offsets up to 47 (32-byte headers), kept until overwritten.
        let built = encoder.encode(count: 24)
        #expect(built == 0..<24)
        #expect(encoder.mediaCount == 0)
        #expect(FlexFECEncoder.fecPacketCount(mediaCount: 6, protection: 64) == 2)
        #expect(FlexFECEncoder.fecPacketCount(mediaCount: 2, protection: 1) == 1)
        #expect(FlexFECEncoder.fecPacketCount(mediaCount: 5, protection: 0) == 0)
        for _ in 0..<4 {
            for i in 0..<48 { try Self.media(UInt16(100 + i), size: 5).withUnsafeBytes { try encoder.add($0) } }
            encoder.encode(count: 24)
        }
        #expect(encoder.packetSize(0) == nil)
        #expect(encoder.packetSize(119) != nil)
        var out = [UInt8](repeating: 0, count: 1500)
        #expect(throws: FlexFECError.batchRefused) { _ = try out.withUnsafeMutableBytes { try encoder.writePacket(0, into: $0) } }
    }

    @Test func aFECPacketOfAnotherStreamIsRefused() throws {
        var receiver = FlexFECReceiver(protectedSSRC: SSRC(5), transportSequenceExtensionID: nil)
        let payload = hex("00000000 00000000 01000000 11223344 1234 D400")
        #expect(throws: FlexFECError.unknownProtectedSSRC(SSRC(0x1122_3344))) {
            try payload.withUnsafeBytes { try receiver.receivedFEC(payload: $0) { _ in } }
        }
    }
}

