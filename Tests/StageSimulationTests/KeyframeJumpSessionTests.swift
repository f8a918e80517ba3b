import MediaTime
import RTP
import Testing
@testable import Receiver

/// The real `ReceiverSession` on a virtual clock: a keyframe whose packets have all arrived is decoded at once even
/// when a hole in front of it is still being repaired (as libwebrtc's frame buffer does); without a complete keyframe
/// behind it, a hole is waited for as before.
@Suite struct KeyframeJumpSessionTests {
    static let start = SessionSimulation.start
    static let frameInterval = Duration.milliseconds(33)

    /// One frame's packets: a keyframe (SPS and PPS each alone, then the IDR in two FU-A fragments) or a P frame of
    /// two FU-A fragments; the marker on the last.
    static func frame(_ index: Int, keyframe: Bool, firstSequence: Int) throws -> [[UInt8]] {
        func fuA(type: UInt8, start: Bool, end: Bool) -> [UInt8] {
            [0x7C, (start ? 0x80 : 0) | (end ? 0x40 : 0) | type] + [UInt8](repeating: UInt8(index & 0xFF), count: 100)
        }
        var payloads: [[UInt8]] = []
        if keyframe {
            payloads.append([0x67, 0x42, 0xC0, 0x1F, 0x8C, 0x8D, 0x40])
            payloads.append([0x68, 0xCE, 0x3C, 0x80])
        }
        let type: UInt8 = keyframe ? 5 : 1
        payloads.append(fuA(type: type, start: true, end: false))
        payloads.append(fuA(type: type, start: false, end: true))
        return try payloads.enumerated().map { offset, payload in
            try RTPHeader(
                marker: offset == payloads.count - 1, payloadType: PayloadType(96),
                sequenceNumber: SequenceNumber(UInt16(firstSequence + offset)),
                timestamp: RTPTimestamp(UInt32(index * 3000)), ssrc: SessionSimulation.mediaSSRC
            ).serializedPacket(payload: payload)
        }
    }

    /// Frames 0 (a keyframe), 1 and 2 (P frames), 3 (a keyframe) and 4 (a P frame), one every 33 ms, their packets
    /// 1 ms apart; `drop` names the packets (by sequence number) the path loses, and nothing is repaired.
    static func run(drop: Set<Int>, keyframeAt: Int = 3) throws -> (shown: [MonotonicTime], arrivals: [Int: MonotonicTime], stats: ReceiverStats) {
        var scenario = SessionSimulation.Scenario()
        scenario.nack = true
        scenario.rtx = false
        scenario.fec = false
        scenario.transportCC = false
        let receiver = try ReceiverSessionHarness(scenario)
        var sequence = 0
        var arrivals: [Int: MonotonicTime] = [:]
        for index in 0..<5 {
            let packets = try frame(index, keyframe: index == 0 || index == keyframeAt, firstSequence: sequence)
            for (offset, packet) in packets.enumerated() {
                let at = start + frameInterval * index + .milliseconds(offset)
                arrivals[sequence] = at
                if !drop.contains(sequence) { receiver.deliver(packet, at: at) }
                sequence += 1
            }
        }
        try receiver.advance(to: start + .seconds(2))
        return (receiver.shownAt, arrivals, receiver.statistics)
    }

    @Test func aCompleteKeyframeBehindAHoleIsDecodedAtOnce() throws {
        // Sequence numbers: frame 0 is 0-3, frame 1 is 4-5, frame 2 6-7, frame 3 (the keyframe) 8-11, frame 4 12-13.
        let (shown, arrivals, stats) = try Self.run(drop: [4])
        let keyframeComplete = try #require(arrivals[11])
        // Frame 0, then the keyframe as soon as its last packet arrived (not the repair wait later), then frame 4.
        #expect(shown.count == 3)
        #expect(shown.dropFirst().first == keyframeComplete)
        #expect(stats.keyframeJumps == 1)
        #expect(stats.packetsSkippedForKeyframe == 3)  // 5, 6 and 7: frames 1 and 2, undecodable without 4
        #expect(stats.packetsGivenUp >= 1)
    }

    @Test func withoutACompleteKeyframeTheHoleIsWaitedFor() throws {
        // The same loss, no keyframe after it: frames 2-4 wait for the hole's repair wait, then are dropped as
        // undecodable (a P frame after a loss), nothing jumps.
        let (shown, arrivals, stats) = try Self.run(drop: [4], keyframeAt: 99)
        #expect(stats.keyframeJumps == 0)
        #expect(stats.packetsSkippedForKeyframe == 0)
        #expect(shown.count == 1)
        _ = arrivals
        // The keyframe itself incomplete (its IDR's first fragment lost too): no jump either; it never decodes.
        let (shownIncomplete, _, statsIncomplete) = try Self.run(drop: [4, 10])
        #expect(statsIncomplete.keyframeJumps == 0)
        #expect(shownIncomplete.count == 1)
    }

    @Test func aKeyframeReachedInOrderNeedsNoJump() throws {
        let (shown, _, stats) = try Self.run(drop: [])
        #expect(shown.count == 5)
        #expect(stats.keyframeJumps == 0)
        #expect(stats.packetsGivenUp == 0)
    }

    @Test func theFirstPacketOfAKeyframeIsTheOneWithTheSPS() throws {
        let packets = try Self.frame(3, keyframe: true, firstSequence: 0)
        let payloads = try packets.map { packet in
            let view = try RTPPacketView(parsing: packet)
            return packet[view.payloadRange]
        }
        #expect(payloads.map { ReceiverSession.startsKeyframe($0) } == [true, false, false, false])
        #expect(payloads.map { ReceiverSession.carriesIDR($0) } == [false, false, true, true])
        // A STAP-A with SPS and PPS starts one too.
        let stapA: [UInt8] = [0x18, 0x00, 0x04, 0x67, 0x42, 0xC0, 0x1F, 0x00, 0x02, 0x68, 0xCE]
        #expect(ReceiverSession.startsKeyframe(stapA[...]))
        #expect(!ReceiverSession.startsKeyframe([0x41, 0x9A][...]))
        #expect(!ReceiverSession.startsKeyframe([][...]))
    }
}
