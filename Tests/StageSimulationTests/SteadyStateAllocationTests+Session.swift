import Codec
import H264
import MediaTime
import RTP
@testable import Sender
import Testing
import TestSupport

/// The real `SenderSession` allocates nothing per packet, each packet written from its frame into the caller's buffer
/// as the driver has it written into the transport's: a window of frames of 20 packets costs the allocations of
/// the same window with frames of 4 packets (what is left is per frame or per RTCP packet: the
/// Sender Reports, the reports' statistics). Pacing, NACK + RTX, the transport-wide sequence number, abs-capture-time
/// and playout-delay (one frame in eight a keyframe) and FlexFEC are on, and
/// a NACK comes every tenth frame. Counted process-wide by the preloaded malloc counter, so Tests/run.sh runs it
/// alone, and in `SteadyStateAllocationTests` (serialized), so that no other check counts at the same time.
extension SteadyStateAllocationTests {
    /// Runs `frames` frames of `packetsPerFrame` packets through a session after a warm-up; the allocations counted
    /// while they ran, and the packets sent.
    func allocations(packetsPerFrame: Int, frames: Int) throws -> (allocations: UInt64, packets: Int) {
        var scenario = SessionSimulation.Scenario()
        scenario.bitrate = 3_000_000
        scenario.congestionControl = false  // the estimator's own arrays are fed per feedback message, not here
        // Issue 25: the per-frame extensions written next to the transport-wide number (the capture time once a
        // second and on keyframes, the playout delay on every packet of keyframes).
        scenario.absoluteCaptureTimeID = 4
        scenario.playoutDelay = (PlayoutDelay(minimumMilliseconds: 0, maximumMilliseconds: 0)!, 5)
        // Issue 24: FlexFEC built as the packets leave and sent from its own buffers (a report of 5 % loss every
        // 100 frames keeps it on).
        scenario.fec = true
        let session = try scenario.makeSender(start: .zero)
        // Frames are made up front: the encoder allocates, the session must not.
        let payload = scenario.senderConfiguration().payloadLimit.maxPayloadSize - 2
        let made = (0..<8).map { i in
            EncoderModel.accessUnit(payloadSize: payload * packetsPerFrame - 16, isKeyframe: i == 0, index: i)
        }
        let statistics = EncodeStatistics(size: 0, averageQP: nil, encodeDuration: .zero, keyframeRequested: false)
        var now = MonotonicTime.zero
        var packets = 0
        var frameIndex = 0
        // The packets are written into one buffer, as the transport's batch buffer takes them.
        var wire = [UInt8](repeating: 0, count: 2048)
        var checksum = 0
        var nextSequenceNumber = Int(SessionSimulation.firstSequenceNumber.rawValue)

        func run(_ count: Int) {
            for _ in 0..<count {
                let capture = MonotonicTime(nanoseconds: Int64(frameIndex) * 33_333_333)
                while let due = session.pollTimeout(), due <= capture {
                    now = due
                    session.handleTimeout(now: now)
                    while session.pollTransmit(rtp: { size, write in
                        packets += 1
                        checksum &+= try wire.withUnsafeMutableBytes { try write(UnsafeMutableRawBufferPointer(rebasing: $0[0..<size])) }
                    }, rtcp: { _ in }) {}
                    while session.pollEvent() != nil {}
                }
                now = capture
                session.handle(encoded: .frame(made[frameIndex % made.count], statistics, captureTime: capture,
                                               keyframeRequestedAt: nil), now: now)
                nextSequenceNumber += packetsPerFrame
                if frameIndex % 100 == 0 {
                    let block = ReportBlock(ssrc: SessionSimulation.mediaSSRC, fractionLost: 13)
                    session.handle(rtcp: [.receiverReport(ReceiverReport(ssrc: SSRC(9), reportBlocks: [block]))], now: now)
                }
                if frameIndex % 10 == 9 {
                    let lost = SequenceNumber(UInt16(truncatingIfNeeded: nextSequenceNumber - packetsPerFrame - 1))
                    // The RTCP parser's arrays: the same count in both windows.
                    session.handle(rtcp: [.nack(GenericNACK(senderSSRC: SSRC(9), mediaSSRC: SessionSimulation.mediaSSRC, lost: [lost]))], now: now)
                }
                while session.pollTransmit(rtp: { size, write in
                    packets += 1
                    checksum &+= try wire.withUnsafeMutableBytes { try write(UnsafeMutableRawBufferPointer(rebasing: $0[0..<size])) }
                }, rtcp: { _ in }) {}
                while session.pollEncoderCommand() != nil {}
                while session.pollEvent() != nil {}
                frameIndex += 1
            }
        }

        run(300)  // warm-up: every slot, queue and the RTX buffer touched
        let count = try MallocCount.counter()
        let sentBefore = packets
        let before = count()
        run(frames)
        let allocations = count() - before
        #expect(checksum > 0)
        #expect(session.snapshot(now: now).fecPacketsSent > 0)
        return (allocations, packets - sentBefore)
    }

    @Test(.enabled(if: MallocCount.enabled, "needs LD_PRELOAD=malloc_count.so"))
    func theSessionAllocatesNothingPerPacket() throws {
        let small = try allocations(packetsPerFrame: 4, frames: 600)
        let large = try allocations(packetsPerFrame: 20, frames: 600)
        print("SenderSession: \(small.allocations) allocations for \(small.packets) packets (4 a frame), "
            + "\(large.allocations) for \(large.packets) packets (20 a frame)")
        #expect(large.packets >= small.packets * 4)
        // Per frame and per RTCP packet the two windows allocate alike; one allocation per packet would add 9,600.
        #expect(large.allocations < small.allocations + UInt64(large.packets - small.packets) / 100)
    }
}
