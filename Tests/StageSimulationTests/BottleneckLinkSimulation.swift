import CongestionControl
import MediaTime
import RTP
import Receiver
import Sender

/// Congestion control wired the way the sender and receiver will wire it, over a simulated bottleneck (1 ms fake
/// clock): frames of `target / 30` bytes (plus `packetOverhead` per packet) every 33 ms -> Pacer (2.5 x target) -> transport-wide sequence number at
/// dequeue -> SendSideBandwidthEstimator.packetSent -> a link of `capacity(t)` bit/s with a drop-tail queue and
/// `oneWayDelay` -> TransportFeedbackGenerator (every 50 ms) and a receiver report each second -> back after
/// `oneWayDelay` -> SendSideBandwidthEstimator -> the encoder target, the pacer and the next frames.
struct BottleneckLinkSimulation {
    var capacity: (Int64) -> Double
    var queueLimit = 30
    var oneWayDelay: Int64 = 25
    var startBitrate = 1_500_000
    /// Bytes each packet carries besides the encoder's: the RTP header (12), the transport-wide sequence number
    /// extension (8) and the SRTP authentication tag (10), as the real sender's packets do; the link (the relay)
    /// counts them as it counts UDP payload.
    static let packetOverhead = 30

    struct Sample {
        var ms: Int64
        var target: Int
        var sent: Int
        var dropped: Int
    }

    func run(seconds: Int64) throws -> [Sample] {
        var estimator = try SendSideBandwidthEstimator(
            initialBitrate: startBitrate, minimumBitrate: 50_000, maximumBitrate: 3_000_000, usesTransportFeedback: true)
        estimator.setConfiguredBitrate(3_000_000)  // the operator allows more than the start; estimation decides
        estimator.setRoundTripTime(.milliseconds(2 * oneWayDelay))
        var pacer = try Pacer(targetBitrate: startBitrate)
        var generator = TransportFeedbackGenerator(senderSSRC: SSRC(2), mediaSSRC: SSRC(1))
        var feedbackOut: [TransportFeedback] = []
        var linkFree = 0.0
        var queue: [Double] = []
        var forward: [(at: Double, transport: UInt16, media: UInt16)] = []
        var backward: [(at: Int64, feedback: TransportFeedback?, block: ReportBlock?)] = []
        var mediaSequence: UInt16 = 0
        var transportSequence: UInt16 = 0
        var receivedHighest: Int64 = -1
        var receivedCount = 0
        var samples: [Sample] = []
        var sentInSecond = 0
        var droppedInSecond = 0
        var target = startBitrate
        for t in Int64(0)..<(seconds * 1000) {
            let now = MonotonicTime(nanoseconds: t * 1_000_000)
            if t % 33 == 0 {
                let frameBytes = target / 8 / 30
                var remaining = frameBytes
                while remaining > 0 {
                    let size = min(1200, remaining + Self.packetOverhead)
                    pacer.enqueue(PacedPacket(sequenceNumber: SequenceNumber(mediaSequence), size: size, kind: .media), now: now)
                    mediaSequence &+= 1
                    remaining -= size - Self.packetOverhead
                }
            }
            while let packet = pacer.dequeue(now: now) {
                estimator.packetSent(transportSequenceNumber: SequenceNumber(transportSequence), size: packet.size, now: now)
                let clock = Double(t)
                queue.removeAll { $0 <= clock }
                sentInSecond += 1
                if queue.count < queueLimit {
                    let departure = max(clock, linkFree) + Double(packet.size * 8) / capacity(t) * 1000
                    linkFree = departure
                    queue.append(departure)
                    forward.append((departure + Double(oneWayDelay), transportSequence, packet.sequenceNumber.rawValue))
                } else {
                    droppedInSecond += 1
                }
                transportSequence &+= 1
            }
            forward.sort { $0.at < $1.at }
            while let first = forward.first, first.at <= Double(t) {
                forward.removeFirst()
                generator.received(SequenceNumber(first.transport), now: now)
                receivedHighest = max(receivedHighest, Int64(first.media))
                receivedCount += 1
            }
            if let deadline = generator.nextDeadline, deadline <= now {
                generator.poll(now: now, into: &feedbackOut)
                for feedback in feedbackOut { backward.append((t + oneWayDelay, feedback, nil)) }
            }
            if t % 1000 == 999, receivedHighest >= 0 {
                let expected = receivedHighest + 1
                let block = ReportBlock(
                    ssrc: SSRC(1), cumulativeLost: Int32(clamping: expected - Int64(receivedCount)),
                    extendedHighestSequenceNumber: UInt32(truncatingIfNeeded: receivedHighest))
                backward.append((t + oneWayDelay, nil, block))
            }
            while let first = backward.first, first.at <= t {
                backward.removeFirst()
                if let feedback = first.feedback { estimator.update(with: feedback, now: now) }
                if let block = first.block { estimator.update(with: block, now: now) }
                target = estimator.targetBitrate
                pacer.setTargetBitrate(target)
            }
            if t % 1000 == 999 {
                samples.append(Sample(ms: t + 1, target: target, sent: sentInSecond, dropped: droppedInSecond))
                sentInSecond = 0
                droppedInSecond = 0
            }
        }
        return samples
    }
}
