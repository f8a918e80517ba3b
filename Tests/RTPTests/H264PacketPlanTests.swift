import H264
import Testing
@testable import RTP

/// The planning form of the packetizer and the writers that turn a plan and its frame into a packet (media or RTX):
/// the same bytes as the packetizing forms, written into a clean or a dirty buffer, and every bad pairing of plan,
/// frame and buffer refused before a byte is written.
@Suite struct H264PacketPlanTests {
    static let sps: [UInt8] = [0x67, 0x42, 0x00, 0x1F]
    static let pps: [UInt8] = [0x68, 0xCE, 0x3C, 0x80]

    /// Frames covering every payload kind: STAP-A of parameter sets ahead of an IDR cut in FU-A, a lone small slice,
    /// a NAL unit of exactly the limit, one byte over it, and F/NRI variety for the STAP-A header.
    static let frames: [EncodedFrame] = [
        frame([sps, pps, nal(0x65, size: 250)]),
        frame([nal(0x41, size: 9)]),
        frame([nal(0x41, size: 40)]),
        frame([nal(0x41, size: 41)]),
        frame([[0x86, 0xAA], [0x21, 0xCC], nal(0x41, size: 120), [0x06, 0x05, 0x01]]),
    ]

    /// Plans each frame, writes every plan into a dirty buffer of exactly its size, and compares with the packets of
    /// the allocating form, in both modes; the plans are the payloader's descriptors with consecutive sequence numbers.
    @Test(arguments: [H264PacketizationMode.nonInterleaved, .singleNALUnit])
    func writtenPlansAreThePacketizedPackets(mode: H264PacketizationMode) throws {
        for access in Self.frames where mode == .nonInterleaved || access.nalUnits.allSatisfy({ $0.length <= 40 }) {
            var planner = try packetizer(maxPayload: 40, mode: mode, firstSequenceNumber: 65534)
            var reference = try packetizer(maxPayload: 40, mode: mode, firstSequenceNumber: 65534)
            let expected = try reference.packetize(access, timestamp: RTPTimestamp(9))
            var plans: [H264PacketPlan] = []
            try planner.plan(access, timestamp: RTPTimestamp(9)) { plans.append($0) }
            #expect(plans.map(\.payload) == (try H264Payloader.payloads(for: access.nalUnits, maxPayloadSize: 40, mode: mode)))
            #expect(plans.map(\.sequenceNumber) == (0..<plans.count).map { SequenceNumber(65534) + $0 })
            #expect(planner.nextSequenceNumber == reference.nextSequenceNumber)
            var written: [[UInt8]] = []
            for plan in plans {
                var buffer = [UInt8](repeating: 0xAA, count: plan.size)
                let size = try buffer.withUnsafeMutableBytes { try planner.write(plan, of: access, into: $0) }
                #expect(size == plan.size)
                written.append(buffer)
            }
            #expect(written == expected)
        }
    }

    /// The RTX form is `RTXPacket.build` of the written original: RTX SSRC, payload type and sequence number, the
    /// original's timestamp, marker and extension block, the original sequence number ahead of the payload.
    @Test func retransmissionsAreTheRTXPacketsOfTheOriginals() throws {
        let ext = try RTPHeaderExtension.oneByte([TransportSequenceNumber.element(id: 5, value: SequenceNumber(0))])
        var p = try H264Packetizer(
            ssrc: SSRC(0x1122_3344), payloadType: PayloadType(96), firstSequenceNumber: SequenceNumber(300),
            mtu: 40 + 20 + 8 + 12 + ext.serializedSize, srtpTrailerSize: 0, headerExtension: ext)
        let writer = p
        for access in Self.frames {
            try p.plan(access, timestamp: RTPTimestamp(77)) { plan in
                var original = [UInt8](repeating: 0, count: plan.size)
                _ = try original.withUnsafeMutableBytes { try writer.write(plan, of: access, into: $0) }
                let expected = try RTXPacket.build(
                    from: original, ssrc: SSRC(0x5555_6666), payloadType: PayloadType(97), sequenceNumber: SequenceNumber(9))
                var rtx = [UInt8](repeating: 0xAA, count: plan.size + RTXPacket.originalSequenceNumberSize)
                let size = try rtx.withUnsafeMutableBytes {
                    try writer.writeRetransmission(
                        plan, of: access, ssrc: SSRC(0x5555_6666), payloadType: PayloadType(97),
                        sequenceNumber: SequenceNumber(9), into: $0)
                }
                #expect(size == expected.count)
                #expect(rtx == expected)
            }
        }
    }

    /// Each bad pairing is refused with its error, and the buffer is left as it was.
    @Test func badPlansAndBuffersAreRefusedBeforeWriting() throws {
        var p = try packetizer(maxPayload: 40)
        let access = Self.frames[0]  // STAP-A (SPS, PPS), then FU-A fragments of the IDR
        var plans: [H264PacketPlan] = []
        try p.plan(access, timestamp: RTPTimestamp(1)) { plans.append($0) }
        let stap = plans[0]
        let fragment = plans[1]
        var otherStap = stap
        otherStap.payload.size += 1
        var pastTheNAL = fragment
        if case .fuA(let index, let range, let isStart, let isEnd) = fragment.payload.kind {
            pastTheNAL.payload.kind = .fuA(
                index: index, range: range.lowerBound..<(access.nalUnits[index].length + 1), isStart: isStart, isEnd: isEnd)
        }
        var headerOnly = fragment
        headerOnly.headerSize = 16
        var missingNAL = fragment
        missingNAL.payload.kind = .single(index: 7)
        let cases: [(H264PacketPlan, EncodedFrame, Int, H264PayloadError)] = [
            (stap, access, stap.size - 1, .bufferTooSmall(needed: stap.size, available: stap.size - 1)),
            (otherStap, access, 100, .planDoesNotMatchFrame),
            (pastTheNAL, access, 100, .planDoesNotMatchFrame),
            (headerOnly, access, 100, .planDoesNotMatchFrame),
            (missingNAL, access, 100, .planDoesNotMatchFrame),
            (fragment, Self.frames[1], 100, .planDoesNotMatchFrame),
        ]
        for (plan, frame, capacity, error) in cases {
            var buffer = [UInt8](repeating: 0xEE, count: capacity)
            #expect(throws: error) { _ = try buffer.withUnsafeMutableBytes { try p.write(plan, of: frame, into: $0) } }
            #expect(buffer.allSatisfy { $0 == 0xEE })
        }
        var rtx = [UInt8](repeating: 0xEE, count: stap.size + 1)
        #expect(throws: H264PayloadError.bufferTooSmall(needed: stap.size + 2, available: stap.size + 1)) {
            _ = try rtx.withUnsafeMutableBytes {
                try p.writeRetransmission(
                    stap, of: access, ssrc: SSRC(2), payloadType: PayloadType(97), sequenceNumber: SequenceNumber(0),
                    into: $0)
            }
        }
        #expect(rtx.allSatisfy { $0 == 0xEE })
    }

    /// A NAL index that points outside the frame's bytes is refused before any packet is planned, and no sequence
    /// number is used up.
    @Test func aNALUnitOutsideTheFrameIsRefusedBeforeAnyPacket() throws {
        var p = try packetizer(maxPayload: 40)
        let header = NALUnitHeader(byte: 0x41)
        let bytes: [UInt8] = [0, 0, 0, 1, 0x41, 1, 2, 3]
        let bad: [(NALUnitLocation, Int)] = [
            (NALUnitLocation(offset: 4, length: 5, header: header), 1),
            (NALUnitLocation(offset: -1, length: 2, header: header), 1),
            (NALUnitLocation(offset: 9, length: 1, header: header), 1),
            (NALUnitLocation(offset: Int.max, length: 1, header: header), 1),
        ]
        for (nal, index) in bad {
            let access = EncodedFrame(
                bytes: bytes, nalUnits: [NALUnitLocation(offset: 4, length: 2, header: header), nal], isKeyframe: false,
                timestamp: 0)
            var emitted = 0
            #expect(throws: H264PayloadError.nalUnitOutsideFrame(index: index)) {
                try p.plan(access, timestamp: RTPTimestamp(0)) { _ in emitted += 1 }
            }
            #expect(emitted == 0)
            #expect(p.nextSequenceNumber == SequenceNumber(1000))
        }
    }
}
