import Codec
import MediaTime
import RTP
import Testing
import Video
@testable import Sender

/// The sender's pure stages, driven by values: no socket, no clock.
@Suite struct SenderStageTests {
    static let day = Duration.seconds(86_400)

    @Test func rtpClockStepsExactlyOneFrameAt30And2997fps() {
        let origin = MonotonicTime(nanoseconds: 123_456_789)
        let clock = RTPClock(offset: 0xFFFF_F000, origin: origin)
        for n in 0..<1000 {
            let capture = origin + .seconds(n) / 30
            #expect(clock.timestamp(at: capture).rawValue == 0xFFFF_F000 &+ UInt32(n * 3000))
        }
        // 29.97 fps: 3003 ticks a frame.
        for n in 0..<1000 {
            let capture = origin + (.seconds(n) * 1001) / 30_000
            #expect(clock.timestamp(at: capture).rawValue == 0xFFFF_F000 &+ UInt32(n * 3003))
        }
    }

    /// Issue 11: media time, RTP timestamps and Sender Report times after 30 days and a year, and at the ends of the
    /// clock, without a trap.
    @Test(arguments: [30, 365, 365 * 100])
    func rtpClockAfterDaysOfRunning(days: Int) {
        let origin = MonotonicTime(nanoseconds: 5)
        let clock = RTPClock(offset: 7, origin: origin)
        let later = origin + Self.day * days
        let ticks = Int64(days) * 86_400 * 90_000
        #expect(RTPClock.ticks(later - origin) == ticks)
        #expect(clock.timestamp(at: later).rawValue == UInt32(truncatingIfNeeded: ticks) &+ 7)
        #expect(clock.timestamp(at: later + .milliseconds(1)).rawValue == UInt32(truncatingIfNeeded: ticks + 90) &+ 7)
    }

    @Test func rtpClockSaturatesInsteadOfTrapping() {
        let clock = RTPClock(offset: 0, origin: MonotonicTime(nanoseconds: .min))
        _ = clock.timestamp(at: MonotonicTime(nanoseconds: .max))
        #expect(RTPClock.ticks(.seconds(Int64.max)) == Int64.max / 100_000 * 9 + (Int64.max % 100_000 * 9 + 50_000) / 100_000)
        #expect(RTPClock.ticks(.seconds(-1)) == -90_000)
        #expect(RTPClock.ticks(.nanoseconds(-5_556)) == -1)  // rounds half a tick away from zero
        #expect(MonotonicTime(nanoseconds: .max) + .seconds(1) == MonotonicTime(nanoseconds: .max))
        #expect(MonotonicTime(nanoseconds: .min) - .seconds(1) == MonotonicTime(nanoseconds: .min))
    }

    @Test func feedbackRouterKeepsOursAndDropsRepeatedFIRs() {
        let ours = SSRC(10), theirs = SSRC(20), other = SSRC(30)
        var router = FeedbackRouter(ssrc: ours)
        let block = ReportBlock(ssrc: ours, fractionLost: 64, cumulativeLost: 3, extendedHighestSequenceNumber: 100,
                                jitter: 0, lastSenderReport: 0, delaySinceLastSenderReport: 0)
        let routed = router.route([
            .receiverReport(ReceiverReport(ssrc: theirs, reportBlocks: [block])),
            .pli(PictureLossIndication(senderSSRC: theirs, mediaSSRC: ours)),
            .pli(PictureLossIndication(senderSSRC: theirs, mediaSSRC: other)),
            .fir(FullIntraRequest(senderSSRC: theirs, entries: [FullIntraRequestEntry(ssrc: ours, sequenceNumber: 1)])),
            .fir(FullIntraRequest(senderSSRC: theirs, entries: [FullIntraRequestEntry(ssrc: ours, sequenceNumber: 1)])),
            .fir(FullIntraRequest(senderSSRC: theirs, entries: [FullIntraRequestEntry(ssrc: ours, sequenceNumber: 2)])),
            .remb(ReceiverEstimatedMaximumBitrate(senderSSRC: theirs, bitrate: 300_000, ssrcs: [other])),
            .remb(ReceiverEstimatedMaximumBitrate(senderSSRC: theirs, bitrate: UInt64.max, ssrcs: [ours])),
            .nack(GenericNACK(senderSSRC: theirs, mediaSSRC: ours, lost: [SequenceNumber(5), SequenceNumber(7)])),
        ])
        #expect(routed == [
            .receptionReport(block), .pictureLoss, .fullIntraRequest, .fullIntraRequest,
            .estimatedMaximumBitrate(Int.max),
            .negativeAcknowledgement(GenericNACK(senderSSRC: theirs, mediaSSRC: ours, lost: [SequenceNumber(5), SequenceNumber(7)])),
        ])
    }

    /// Transport-wide feedback covers the whole transport: routed whatever media SSRC it names (libwebrtc names its
    /// first one, which may be another stream's).
    @Test func feedbackRouterPassesTransportWideFeedbackWhateverItsMediaSSRC() throws {
        var router = FeedbackRouter(ssrc: SSRC(10))
        let feedback = try TransportFeedback(
            senderSSRC: SSRC(20), mediaSSRC: SSRC(30), baseSequenceNumber: SequenceNumber(7), feedbackPacketCount: 0,
            arrivals: [MonotonicTime(nanoseconds: 1_000_000), nil])
        #expect(router.route([.receiverReport(ReceiverReport(ssrc: SSRC(20))), .transportFeedback(feedback)])
            == [.transportFeedback(feedback)])
    }

    @Test func feedbackRouterForgetsRequestersBeyondItsBound() {
        var router = FeedbackRouter(ssrc: SSRC(1))
        for requester in 0..<1000 {
            let fir = RTCPPacket.fir(FullIntraRequest(
                senderSSRC: SSRC(UInt32(requester + 100)), entries: [FullIntraRequestEntry(ssrc: SSRC(1), sequenceNumber: 9)]))
            #expect(router.route([fir]) == [.fullIntraRequest])
        }
    }

    @Test func linkQualityReadsRTTAndLoss() {
        var link = LinkQuality()
        let arrival = NTPTimestamp(seconds: 1000, fraction: 0)
        // LSR 1 s before arrival, DLSR 0.25 s: RTT 0.75 s.
        let lsr = NTPTimestamp(seconds: 999, fraction: 0).middle32
        let block = ReportBlock(ssrc: SSRC(1), fractionLost: 128, cumulativeLost: 12, extendedHighestSequenceNumber: 0,
                                jitter: 0, lastSenderReport: lsr, delaySinceLastSenderReport: 16_384)
        link.update(with: block, arrival: arrival)
        #expect(link.fractionLost == 0.5)
        #expect(link.packetsLost == 12)
        let rtt = try! #require(link.roundTripTime)
        #expect(abs(rtt.inSeconds - 0.75) < 0.001)
    }

    @Test func mailboxKeepsTheNewestFrameAndCountsTheRest() throws {
        let mailbox = FrameMailbox()
        var woken = 0
        for n in 0..<5 {
            let (wake, _) = try mailbox.put(captureTime: MonotonicTime(nanoseconds: Int64(n))) { $0 = I420Frame(width: 16, height: 16) }
            if wake { woken += 1 }
        }
        #expect(woken == 1)
        #expect(mailbox.droppedFrames == 4)
        let slot = try #require(mailbox.take())
        #expect(slot.captureTime == MonotonicTime(nanoseconds: 4))
        #expect(mailbox.take()?.captureTime == nil)
        // Idle again: the next frame wakes the encoder.
        #expect(try mailbox.put(captureTime: .zero) { _ in }.wake)
        mailbox.close()
        #expect(throws: SenderError.finished) { _ = try mailbox.put(captureTime: .zero) { _ in } }
    }

    @Test func mailboxLeavesTheSlotAloneWhenFillingFails() throws {
        struct Broken: Error {}
        let mailbox = FrameMailbox()
        #expect(throws: Broken.self) { _ = try mailbox.put(captureTime: .zero) { _ in throw Broken() } }
        #expect(mailbox.take()?.captureTime == nil)
        #expect(mailbox.droppedFrames == 0)
    }

    @Test(arguments: [(0, false), (100, false), (400, true)])
    func throttleWindowDecidesTheForcedFrame(millisecondsAfterKeyframe: Int, forced: Bool) {
        var throttle = KeyframeRequestThrottle(minimumInterval: .milliseconds(300))
        throttle.keyframeEncoded(at: .zero)
        throttle.request(at: .zero)
        #expect(throttle.shouldForceKeyframe(at: .zero + .milliseconds(millisecondsAfterKeyframe)) == forced)
    }
}
