import H264
import Testing
@testable import RTP

@Suite struct H264DepacketizerTests {
    static let keyframeNALs: [[UInt8]] = [
        [0x67, 0x42, 0x00, 0x1F], [0x68, 0xCE, 0x3C, 0x80], nal(0x06, size: 9), nal(0x65, size: 3000),
    ]
    static let deltaNALs: [[UInt8]] = [nal(0x41, size: 700), nal(0x41, size: 40)]

    /// Packets of a keyframe (timestamp 1000) then a delta frame (timestamp 4000), payload limit 500.
    func stream() throws -> (key: [[UInt8]], delta: [[UInt8]]) {
        var p = try packetizer(maxPayload: 500, firstSequenceNumber: 65530)
        let key = try p.packetize(frame(Self.keyframeNALs), timestamp: RTPTimestamp(1000))
        let delta = try p.packetize(frame(Self.deltaNALs), timestamp: RTPTimestamp(4000))
        return (key, delta)
    }

    func frames(_ events: [H264DepacketizerEvent]) -> [H264ReceivedFrame] {
        events.compactMap { if case .frame(let f) = $0 { f } else { nil } }
    }

    func drops(_ events: [H264DepacketizerEvent]) -> [H264FrameDropReason] {
        events.compactMap { if case .frameDropped(_, let reason) = $0 { reason } else { nil } }
    }

    @Test func roundTripsSingleSTAPAAndFUAAcrossASequenceWrap() throws {
        let (key, delta) = try stream()
        #expect(key.count == 8)  // STAP-A (SPS, PPS, SEI) + 7 FU-A fragments
        var d = H264Depacketizer()
        var events: [H264DepacketizerEvent] = []
        for packet in key + delta { events += d.push(packet) }
        let out = frames(events)
        #expect(events.count == 2 && out.count == 2)
        #expect(out[0].frame.bytes == AnnexB.serialize(Self.keyframeNALs))
        #expect(out[0].frame.isKeyframe)
        #expect(out[0].frame.nalUnits.map(\.type) == [.sps, .pps, .sei, .idrSlice])
        #expect(out[0].rtpTimestamp == RTPTimestamp(1000) && out[0].frame.timestamp == 1000)
        #expect(out[0].hadMarker && out[0].ssrc == SSRC(0x1122_3344))
        #expect(out[0].firstSequenceNumber == 65530 && out[0].lastSequenceNumber == 65537)
        #expect(out[1].frame.bytes == AnnexB.serialize(Self.deltaNALs))
        #expect(!out[1].frame.isKeyframe)
        #expect(out[1].frame.timestamp == 4000)
    }

    @Test func toleratesReorderingInsideTheWindow() throws {
        let (key, delta) = try stream()
        var packets = key + delta
        packets.swapAt(1, 4)
        packets.swapAt(6, 9)
        var d = H264Depacketizer()
        let events = packets.flatMap { d.push($0) }
        #expect(
            frames(events).map(\.frame.bytes)
                == [AnnexB.serialize(Self.keyframeNALs), AnnexB.serialize(Self.deltaNALs)])
        #expect(!events.contains { $0.requestsKeyframe })
    }

    @Test func aLostFragmentDropsTheFrameAndAsksForAKeyframe() throws {
        let (key, delta) = try stream()
        var packets = key + delta
        packets.remove(at: 3)  // a middle FU-A fragment of the IDR
        var d = H264Depacketizer(reorderWindow: 4)
        let events = packets.flatMap { d.push($0) } + d.flush()
        #expect(events.contains {
            if case .packetsLost(let first, let count) = $0 { first == 65533 && count == 1 } else { false }
        })
        #expect(drops(events) == [.packetLoss])
        #expect(frames(events).map(\.frame.timestamp) == [4000])
        #expect(events.contains { $0.requestsKeyframe })
    }

    @Test func aLostMarkerPacketIsFoundAtTheTimestampChange() throws {
        let (key, delta) = try stream()
        var d = H264Depacketizer(reorderWindow: 2)
        let events = (key.dropLast() + delta).flatMap { d.push($0) }
        #expect(drops(events) == [.packetLoss])
        #expect(frames(events).count == 1)
    }

    @Test func continuationWithoutStartIsReported() throws {
        let (key, _) = try stream()
        var d = H264Depacketizer()
        let events = key.dropFirst(2).flatMap { d.push($0) }  // starts at the 2nd FU-A fragment
        #expect(drops(events) == [.missingFragmentStart])
    }

    @Test func missingEndFragmentIsReported() throws {
        var p = try packetizer(maxPayload: 50)
        let fu = try p.packetize(frame([nal(0x65, size: 120)]), timestamp: RTPTimestamp(7))
        // Start fragment, then a single NAL packet of the same frame with the marker.
        var header = try RTPPacketView(parsing: fu[2]).header
        header.sequenceNumber = try RTPPacketView(parsing: fu[0]).header.sequenceNumber + 1
        let single = try header.serializedPacket(payload: [0x41, 0x01])
        var d = H264Depacketizer()
        let events = d.push(fu[0]) + d.push(single)
        #expect(drops(events) == [.missingFragmentEnd])
    }

    @Test func timestampChangeWithoutMarkerEndsTheFrame() throws {
        let a = RTPHeader(
            payloadType: PayloadType(96), sequenceNumber: SequenceNumber(1), timestamp: RTPTimestamp(10), ssrc: SSRC(5))
        var b = a
        b.sequenceNumber = SequenceNumber(2)
        b.timestamp = RTPTimestamp(20)
        var d = H264Depacketizer()
        let events =
            d.push(try a.serializedPacket(payload: [0x41, 0xAA])) + d.push(try b.serializedPacket(payload: [0x41, 0xBB]))
        let out = frames(events)
        #expect(out.count == 1)
        #expect(out.first?.frame.bytes == hex("00000001 41AA"))
        #expect(out.first?.hadMarker == false)
        #expect(frames(d.flush()).first?.frame.bytes == hex("00000001 41BB"))
    }

    @Test func duplicatesMalformedPacketsAndPayloadsAreReported() throws {
        var h = RTPHeader(
            marker: true, payloadType: PayloadType(96), sequenceNumber: SequenceNumber(9), timestamp: RTPTimestamp(1),
            ssrc: SSRC(5))
        var d = H264Depacketizer()
        let good = try h.serializedPacket(payload: [0x65, 0x01])
        #expect(frames(d.push(good)).count == 1)
        let dup = d.push(good)
        guard case .latePacket(let s) = dup.first else { Issue.record("expected latePacket"); return }
        #expect(s == SequenceNumber(9))
        guard case .malformedPacket(let e) = d.push([0x80, 0x60]).first else {
            Issue.record("expected malformed")
            return
        }
        #expect(e == .truncatedHeader(count: 2))
        h.sequenceNumber = SequenceNumber(10)
        h.timestamp = RTPTimestamp(2)
        #expect(
            drops(d.push(try h.serializedPacket(payload: [0x1F, 0x00])))
                == [.malformedPayload(.reservedNALUnitType(31))])
    }

    @Test func timestampsUnwrapAcrossTheRTPWrap() throws {
        var d = H264Depacketizer()
        var h = RTPHeader(
            marker: true, payloadType: PayloadType(96), sequenceNumber: SequenceNumber(1),
            timestamp: RTPTimestamp(0xFFFF_F000), ssrc: SSRC(5))
        let first = frames(d.push(try h.serializedPacket(payload: [0x65, 0x01])))
        h.sequenceNumber = SequenceNumber(2)
        h.timestamp = RTPTimestamp(0x0000_1000)
        let second = frames(d.push(try h.serializedPacket(payload: [0x41, 0x01])))
        #expect(first.first?.frame.timestamp == 0xFFFF_F000)
        #expect(second.first?.frame.timestamp == 0x1_0000_1000)
    }
}

@Suite struct H264DepacketizerResynchronizationTests {
    func packet(seq: UInt16, ts: UInt32, ssrc: UInt32 = 5) throws -> [UInt8] {
        try RTPHeader(
            marker: true, payloadType: PayloadType(96), sequenceNumber: SequenceNumber(seq),
            timestamp: RTPTimestamp(ts), ssrc: SSRC(ssrc)
        ).serializedPacket(payload: [0x41, UInt8(truncatingIfNeeded: seq)])
    }

    func frameCount(_ events: [H264DepacketizerEvent]) -> Int {
        events.filter { if case .frame = $0 { true } else { false } }.count
    }

    @Test func anSSRCChangeStartsOver() throws {
        var d = H264Depacketizer()
        #expect(frameCount(d.push(try packet(seq: 20000, ts: 100))) == 1)
        let events = d.push(try packet(seq: 3, ts: 7, ssrc: 6))
        guard case .resynchronized(let ssrc) = events.first else {
            Issue.record("expected resynchronized, got \(events)")
            return
        }
        #expect(ssrc == SSRC(6))
        #expect(frameCount(events) == 1)
        #expect(events.contains { $0.requestsKeyframe })
    }

    @Test func aSequenceRestartBehindTheWindowResynchronizesAfterEightPackets() throws {
        var d = H264Depacketizer()
        for i in 0..<10 { _ = d.push(try packet(seq: UInt16(30000 + i), ts: UInt32(i))) }
        // The sender restarts 1000 packets back: the first 7 are reported late, the 8th resynchronizes.
        var late = 0
        var all: [H264DepacketizerEvent] = []
        for i in 0..<8 {
            let events = d.push(try packet(seq: UInt16(29000 + i), ts: UInt32(1000 + i)))
            late += events.filter { if case .latePacket = $0 { true } else { false } }.count
            all += events
        }
        #expect(late == 7)
        #expect(all.contains { if case .resynchronized(SSRC(5)) = $0 { true } else { false } })
        #expect(frameCount(all) == 1)
        #expect(frameCount(d.push(try packet(seq: 29008, ts: 2000))) == 1)
    }

    @Test func aSingleStrayOldPacketIsOnlyLate() throws {
        var d = H264Depacketizer()
        for i in 0..<100 { _ = d.push(try packet(seq: UInt16(i), ts: UInt32(i))) }
        let events = d.push(try packet(seq: 2, ts: 2))
        #expect(events.count == 1)
        guard case .latePacket(let s) = events.first else { Issue.record("expected late"); return }
        #expect(s == SequenceNumber(2))
        #expect(frameCount(d.push(try packet(seq: 100, ts: 100))) == 1)
    }
}

@Suite struct H264DepacketizerLimitTests {
    @Test func aFrameOverTheSizeLimitIsDropped() throws {
        var p = try packetizer(maxPayload: 100)
        let packets = try p.packetize(frame([nal(0x65, size: 1000)]), timestamp: RTPTimestamp(1))
        var d = H264Depacketizer(maxFrameSize: 500)
        let events = packets.flatMap { d.push($0) }
        #expect(events.count == 1)
        guard case .frameDropped(let ts, let reason) = events.first else {
            Issue.record("expected a drop, got \(events)")
            return
        }
        #expect(ts == RTPTimestamp(1))
        #expect(reason == .tooLarge(limit: 500))
        // 4-byte start code + 1000-byte NAL fits exactly.
        var roomy = H264Depacketizer(maxFrameSize: 1004)
        let accepted = packets.flatMap { roomy.push($0) }
        guard case .frame(let f) = accepted.first, accepted.count == 1 else { Issue.record("expected a frame"); return }
        #expect(f.frame.bytes.count == 1004)
    }
}
