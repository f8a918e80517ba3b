import Foundation
import H264
import MediaTime
import RTP
import Receiver
import Sender
import Testing
import TestSupport
import Video

/// Steady state of the send path's new stages allocates nothing per packet: record the packet's plan and frame in the
/// history, queue in the pacer, dequeue, write the packet from its frame, answer a NACK, write the RTX packet. The counter is process-wide, so
/// Tests/run.sh runs this suite alone, as:
///
///     gcc -O2 -shared -fPIC -o /tmp/malloc_count.so Tests/Benchmarks/C/malloc_count.c
///     LD_PRELOAD=/tmp/malloc_count.so swift test --skip-build --filter SteadyStateAllocationTests
@Suite(.serialized) struct SteadyStateAllocationTests {
    @Test(.enabled(if: MallocCount.enabled, "needs LD_PRELOAD=malloc_count.so"))
    func sendPathStagesDoNotAllocatePerPacket() throws {
        var history = try PacketHistory()
        var pacer = try Pacer(targetBitrate: 2_000_000)
        var responder = NACKResponder(mediaSSRC: SSRC(0x1122_3344), targetBitrate: 2_000_000)
        // 1,200-byte packets: one 1,188-byte NAL unit each, plain RTP; every tenth starts a keyframe with the L1T3
        // dependency descriptor's structure (16 bytes), the others carry its 3 mandatory bytes.
        let packetizer = try H264Packetizer(
            ssrc: SSRC(0x1122_3344), payloadType: PayloadType(96), firstSequenceNumber: SequenceNumber(0),
            mtu: 1188 + 20 + 8 + RTPHeader.fixedSize + 20, srtpTrailerSize: 0,
            extensionIDs: RTPPacketExtensionIDs(dependencyDescriptor: 5))
        var descriptors = DependencyDescriptorSequence(
            structure: DependencyStructure.singleSpatialLayer(temporalLayers: 3)!, firstFrameNumber: 0)
        let keyframeDescriptor = try descriptors.describe(isKeyframe: true, temporalLayer: 0)
        let deltaDescriptor = try descriptors.describe(isKeyframe: false, temporalLayer: 2)
        let frame = EncodedFrame(
            annexB: AnnexB.serialize([[UInt8(0x41)] + [UInt8](repeating: 0xAB, count: 1187)]), timestamp: 0)
        var packet = H264PacketPlan(
            sequenceNumber: SequenceNumber(0), timestamp: RTPTimestamp(0),
            payload: H264PayloadDescriptor(kind: .single(index: 0), size: 1188, isLastOfAccessUnit: true),
            headerSize: RTPHeader.fixedSize)
        var sendBuffer = [UInt8](repeating: 0, count: 1500)
        var resend: [SequenceNumber] = []
        resend.reserveCapacity(64)
        // NACKs are parsed (and allocated) by the RTCP layer; here they are made up front.
        let nacks = (0..<64).map { i in
            GenericNACK(senderSSRC: SSRC(1), mediaSSRC: SSRC(0x1122_3344), pairs: [NACKPair(packetID: SequenceNumber(UInt16(i * 100)))])
        }
        var checksum = 0

        func iterate(_ i: Int) throws {
            let now = MonotonicTime(nanoseconds: Int64(i) * 5_000_000)
            let sequenceNumber = UInt16(truncatingIfNeeded: i)
            packet.sequenceNumber = SequenceNumber(sequenceNumber)
            let keyframe = i % 10 == 0
            packet.extensions.dependencyDescriptor = keyframe ? keyframeDescriptor : deltaDescriptor
            packet.headerSize = RTPHeader.fixedSize + (keyframe ? 4 + 20 : 4 + 4)
            history.store(packet, of: frame, now: now)
            pacer.enqueue(PacedPacket(sequenceNumber: packet.sequenceNumber, size: packet.size, kind: .media), now: now)
            if i % 100 == 50 {
                resend.removeAll(keepingCapacity: true)
                responder.respond(to: nacks[(i / 100) % nacks.count], now: now, history: &history, retransmit: &resend)
                for seq in resend {
                    pacer.enqueue(PacedPacket(sequenceNumber: seq, size: 1202, kind: .retransmission), now: now)
                }
            }
            while let paced = pacer.dequeue(now: now) {
                guard let (original, stored) = history.packet(paced.sequenceNumber, now: now) else { continue }
                let length = try sendBuffer.withUnsafeMutableBytes { out -> Int in
                    if paced.kind == .media { return try packetizer.write(original, of: stored, into: out) }
                    return try packetizer.writeRetransmission(
                        original, of: stored, ssrc: SSRC(2), payloadType: PayloadType(97),
                        sequenceNumber: SequenceNumber(UInt16(truncatingIfNeeded: i)), into: out)
                }
                checksum &+= length
            }
        }

        let allocations = try MallocCount.allocations(warmUp: 0..<20_000, measured: 20_000..<70_000, iterate)
        print("send-path stages: \(allocations) allocations over 50,000 packets (checksum \(checksum))")
        #expect(allocations == 0)
        #expect(responder.statistics.packetsRetransmitted > 0)
    }

    /// The receive path's stages per packet: NACK generator (with 1 % loss, polled every 5 ms), jitter buffer (holding
    /// buffer indices, as a receiver with a buffer pool would), transport-wide arrival recording.
    @Test(.enabled(if: MallocCount.enabled, "needs LD_PRELOAD=malloc_count.so"))
    func receivePathStagesDoNotAllocatePerPacket() throws {
        var generator = NACKGenerator()
        var jitter = try JitterBuffer<Int>(maximumWait: .milliseconds(100))
        var feedback = TransportFeedbackGenerator(senderSSRC: SSRC(1), mediaSSRC: SSRC(2), interval: .seconds(1))
        var nack: [SequenceNumber] = []
        nack.reserveCapacity(256)
        var released = 0

        func iterate(_ i: Int) {
            let now = MonotonicTime(nanoseconds: Int64(i) * 1_000_000)
            if i % 100 != 37 {  // 1 % loss, never repaired: the jitter buffer skips it after 100 ms
                let seq = SequenceNumber(UInt16(truncatingIfNeeded: i))
                generator.received(seq, now: now)
                jitter.insert(i, sequenceNumber: seq, now: now)
                feedback.received(seq, now: now)
            }
            while let output = jitter.pop(now: now) {
                if case .packet = output { released += 1 }
            }
            if i % 5 == 0 { _ = generator.poll(now: now, into: &nack) }
        }

        let allocations = try MallocCount.allocations(warmUp: 0..<20_000, measured: 20_000..<70_000, iterate)
        print("receive-path stages: \(allocations) allocations over 50,000 packets (released \(released))")
        #expect(allocations == 0)
        #expect(jitter.lostCount > 0)
        #expect(generator.statistics.sequenceNumbersNACKed > 0)
    }

    /// A lower simulcast layer's chroma smoothing reuses its planes: nothing is allocated per picture.
    @Test(.enabled(if: MallocCount.enabled, "needs LD_PRELOAD=malloc_count.so"))
    func chromaSmoothingDoesNotAllocatePerPicture() throws {
        var picture = I420Frame(width: 640, height: 360)
        let pattern = try TestPattern(width: 640, height: 360)
        var smoother = ChromaSmoother()
        var checksum = 0
        func iterate(_ i: Int) {
            picture.withView { view in checksum &+= smoother.smooth(view) { u, v, _ in Int(u[1000]) + Int(v[2000]) } }
        }
        pattern.render(frameIndex: 5, into: &picture)
        let allocations = try MallocCount.allocations(warmUp: 0..<10, measured: 10..<110, iterate)
        print("chroma smoothing: \(allocations) allocations over 100 pictures (checksum \(checksum))")
        #expect(allocations == 0)
    }
}
