import MediaTime
import RTP
import Receiver
import Testing

/// Issue 12, item 4, on the real `ReceiverSession`, on a virtual clock: the receiver learns an RTT longer than the
/// 100 ms it assumes, and its jitter buffer then waits for four NACK tries (regression: on the 10 % / 100 ms path
/// every NACK was repeated before its answer could come, Karn's rule threw every sample away, and the wait stayed at
/// 300 ms). Formerly timed over a loopback socket against a scripted sender (issue 21).
@Suite struct NACKRoundTripSessionTests {
    static let start = SessionSimulation.start
    static let frameInterval = Duration.milliseconds(40)
    static let frames = 120
    /// The frames whose first packet the path drops: from 3.2 s on, after the 3 s in which the receiver waits for
    /// an XR round trip before it takes NACK samples over RTX without one (this path carries no XR answer).
    static let lossyFrames = [80, 90, 100]

    /// What the receiver did on a path that drops the first packet of frames 80, 90 and 100 and every repeated NACK,
    /// and takes `roundTrip` from a NACK to its answer.
    struct Run {
        /// The NACKs sent, by the time each left (ms since the start).
        var nacks: [(at: Int, lost: [SequenceNumber])] = []
        /// The statistics just before and just after each answer arrived (ms since the start).
        var beforeAnswer: [Int: ReceiverStats] = [:]
        var afterAnswer: [Int: ReceiverStats] = [:]
        var final = ReceiverStats()
        var framesShown = 0
    }

    /// The real sender (no pacing, RTX) and the real receiver at 25 fps, P frames of three packets (so that the RTP
    /// timestamps and arrival times, in steps of 3,600 ticks and 40 ms, leave no interarrival jitter); the path
    /// forwards the media at once, drops the first packet of `lossyFrames`, takes the first NACK for each packet to
    /// the sender (every repeat is lost) and brings the sender's answer back `roundTrip` after the NACK left.
    static func run(roundTrip: Duration) throws -> Run {
        var scenario = SessionSimulation.Scenario()
        scenario.frameRate = 25
        scenario.pacing = false
        scenario.transportCC = false
        scenario.receiverReportInterval = .milliseconds(200)
        let sender = try SenderSessionHarness(scenario)
        let receiver = try ReceiverSessionHarness(scenario)
        var run = Run()
        var forwarded = 0
        var nacksSeen = 0
        var answered: Set<SequenceNumber> = []
        var answerTimes: [MonotonicTime] = []

        func forward(droppingFirstOfFrame lossy: Bool) throws {
            var first = lossy
            for sent in sender.transmitted[forwarded...] {
                switch sent.packet {
                case .rtp(let bytes):
                    if first, sent.rtp?.ssrc == SessionSimulation.mediaSSRC {
                        first = false
                        continue
                    }
                    receiver.deliver(bytes, at: sent.at)
                case .rtcp(let compound):
                    receiver.deliver(try RTCPPacket.serialized(compound), at: sent.at)
                }
            }
            forwarded = sender.transmitted.count
        }

        func advance(to time: MonotonicTime) throws {
            // Each answer is scheduled when its NACK is seen; stop just before and just after each, to read the stats.
            while let next = answerTimes.first, next <= time {
                let key = Int((next - start) / .milliseconds(1))
                try receiver.advance(to: next - .nanoseconds(1))
                run.beforeAnswer[key] = receiver.statistics
                try receiver.advance(to: next)
                run.afterAnswer[key] = receiver.statistics
                answerTimes.removeFirst()
                try answerNACKs()
            }
            try receiver.advance(to: time)
            try answerNACKs()
        }

        func answerNACKs() throws {
            let nacks = receiver.nacksSent
            for nack in nacks[nacksSeen...] {
                run.nacks.append((Int((nack.at - start) / .milliseconds(1)), nack.lost))
                let first = nack.lost.filter { answered.insert($0).inserted }
                guard !first.isEmpty else { continue }
                let compound: [RTCPPacket] = [
                    .receiverReport(ReceiverReport(ssrc: SessionSimulation.receiverSSRC)),
                    .nack(GenericNACK(senderSSRC: SessionSimulation.receiverSSRC, mediaSSRC: SessionSimulation.mediaSSRC, lost: first)),
                ]
                sender.advance(to: nack.at)
                sender.receive(compound, now: max(nack.at, sender.now))
                let answerTime = nack.at + roundTrip
                for sent in sender.transmitted[forwarded...] {
                    if case .rtp(let bytes) = sent.packet { receiver.deliver(bytes, at: answerTime) }
                }
                forwarded = sender.transmitted.count
                answerTimes.append(answerTime)
                answerTimes.sort()
            }
            nacksSeen = nacks.count
        }

        for index in 0..<frames {
            let time = start + frameInterval * index
            try advance(to: time)
            sender.advance(to: time)
            sender.send(payloadSize: index == 0 ? 6_000 : 3_000, keyframe: index == 0, now: time)
            try forward(droppingFirstOfFrame: lossyFrames.contains(index))
        }
        try advance(to: start + frameInterval * frames + .seconds(1))
        run.final = receiver.statistics
        run.framesShown = receiver.shownAt.count
        return run
    }

    /// At 250 ms the first loss is NACKed at once and repeated every assumed 100 ms (+ 5 ms): its answer is
    /// ambiguous (Karn: no sample) and the repeat interval doubles to 200 ms; the next loss's repeat (205 ms) still
    /// comes before its answer, and the interval doubles to 400 ms; the third loss's answer comes first: one sample,
    /// 250 ms. The jitter buffer then waits for four tries, 4 x 250 + 3 x 5 ms (under its 2 s budget).
    /// At 150 ms the first back-off is enough: the second loss gives the sample, and the wait is 4 x 150 + 3 x 5 ms.
    @Test(arguments: [
        (250, [[3200, 3305, 3410], [3600, 3805], [4000]], 4250, 1.015),
        (150, [[3200, 3305], [3600], [4000]], 3750, 0.615),
    ] as [(Int, [[Int]], Int, Double)])
    func aLongRoundTripIsLearnedThroughTheNACKBackOff(
        roundTrip: Int, nackTimes: [[Int]], firstSample: Int, wait: Double
    ) throws {
        let run = try Self.run(roundTrip: .milliseconds(roundTrip))
        // One missing packet per loss, NACKed at these times (ms since the start).
        let lost = run.nacks.flatMap(\.lost)
        let byPacket = Dictionary(grouping: run.nacks, by: { $0.lost }).values.map { $0.map(\.at) }.sorted { $0[0] < $1[0] }
        #expect(Set(lost).count == 3)
        #expect(run.nacks.allSatisfy { $0.lost.count == 1 })
        #expect(byPacket == nackTimes)

        // No sample before `firstSample` (every earlier answer was ambiguous); the sample then is the round trip.
        for (time, statistics) in run.afterAnswer where time < firstSample {
            #expect(statistics.roundTripTime == nil, "RTT at \(time) ms: \(String(describing: statistics.roundTripTime))")
        }
        let before = try #require(run.beforeAnswer[firstSample])
        let after = try #require(run.afterAnswer[firstSample])
        #expect(before.roundTripTime == nil)
        #expect(before.jitterBufferWait == 1.0)  // the wait before any round trip is known
        #expect(after.roundTripTime == Double(roundTrip) / 1000)
        #expect(after.jitterBufferWait == wait)

        #expect(run.final.roundTripTime == Double(roundTrip) / 1000)
        #expect(run.final.jitterBufferWait == wait)
        #expect(run.final.jitter == 0)
        #expect(run.final.packetsLost == 0, "every dropped packet repaired")
        #expect(run.final.retransmittedPacketsReceived == 3)
        #expect(run.final.pliCount == 0)
        #expect(run.framesShown == Self.frames)
    }
}
