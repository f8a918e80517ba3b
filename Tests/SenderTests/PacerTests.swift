import MediaTime
import RTP
import TestSupport
import Testing
@testable import Sender

@Suite struct PacerTests {
    func media(_ seq: UInt16, size: Int = 1200) -> PacedPacket {
        PacedPacket(sequenceNumber: SequenceNumber(seq), size: size, kind: .media)
    }

    /// Drains the pacer by waking exactly at `nextSendTime`, and returns the send times in ms.
    func drain(_ pacer: inout Pacer, from start: MonotonicTime) -> [(UInt16, Double)] {
        var now = start
        var sent: [(UInt16, Double)] = []
        while let next = pacer.nextSendTime(now: now) {
            now = max(now, next)
            while let packet = pacer.dequeue(now: now) {
                sent.append((packet.sequenceNumber.rawValue, Double(now.nanoseconds) / 1e6))
            }
        }
        return sent
    }

    /// libwebrtc's burst, 40 ms at the pacing rate: a 720p P frame at 1.5 Mbit/s (about 6 KB) leaves at once, a
    /// keyframe is spread; at high rates a burst stops at 63 KB.
    @Test func aFortyMillisecondBurstLetsAPFrameOutAtOnceAndCapsLargeBursts() throws {
        var pacer = try Pacer(targetBitrate: 1_500_000, burstInterval: .milliseconds(40))  // 18,750 bytes in 40 ms
        for seq in UInt16(0)..<5 { pacer.enqueue(media(seq), now: ms(0)) }  // 6,000 bytes
        #expect(drain(&pacer, from: ms(0)).allSatisfy { $0.1 == 0 })
        for seq in UInt16(5)..<45 { pacer.enqueue(media(seq), now: ms(100)) }  // a 48 KB keyframe
        let keyframe = drain(&pacer, from: ms(100))
        #expect(keyframe.filter { $0.1 == 100 }.count == 16)  // debt 0 ... 18,000 <= 18,750
        #expect(keyframe.count == 40 && keyframe.last!.1 > 155)  // the other 24 at the pacing rate, 2.56 ms apart
        var fast = try Pacer(targetBitrate: 10_000_000, burstInterval: .milliseconds(40))  // 125 KB in 40 ms: capped
        for seq in UInt16(0)..<100 { fast.enqueue(media(seq), now: ms(0)) }
        #expect(drain(&fast, from: ms(0)).filter { $0.1 == 0 }.count == 53)  // debt 0 ... 62,400 <= 63,000
    }

    /// 1.6 Mbit/s x 2.5 = 4 Mbit/s = 500 bytes/ms; a 1,200-byte packet every 2.4 ms, after a burst allowance of
    /// 5 ms (2,500 bytes): the first three go at once (debt 0, 1,200, 2,400 <= 2,500).
    @Test func pacesAtFactorTimesTarget() throws {
        var pacer = try Pacer(targetBitrate: 1_600_000, burstInterval: .milliseconds(5))
        #expect(pacer.pacingBitrate == 4_000_000)
        for seq in UInt16(0)..<50 { pacer.enqueue(media(seq), now: ms(0)) }
        let sent = drain(&pacer, from: ms(0))
        #expect(sent.map(\.0) == Array(0..<50))
        #expect(sent[0].1 == 0 && sent[1].1 == 0 && sent[2].1 == 0)
        #expect(abs(sent[3].1 - 2.2) < 0.001)  // debt 3,600 - 2,500 allowance = 1,100 bytes = 2.2 ms
        for i in 4..<50 { #expect(abs(sent[i].1 - sent[i - 1].1 - 2.4) < 0.001) }
        // 60,000 bytes over (49 - 2) x 2.4 ms + 2.2 ms: the long-run rate is the pacing rate.
        #expect(pacer.statistics.mediaPacketsSent == 50)
        #expect(pacer.statistics.bytesSent == 60_000)
        #expect(pacer.nextSendTime(now: ms(1000)) == nil)
    }

    @Test func noBurstAllowanceSpacesEveryPacket() throws {
        var pacer = try Pacer(targetBitrate: 1_600_000, burstInterval: .zero)
        for seq in UInt16(0)..<4 { pacer.enqueue(media(seq), now: ms(0)) }
        let sent = drain(&pacer, from: ms(0))
        #expect(sent.map(\.1).map { ($0 * 1000).rounded() / 1000 } == [0, 2.4, 4.8, 7.2])
    }

    @Test func retransmissionsGoFirst() throws {
        var pacer = try Pacer(targetBitrate: 1_600_000, burstInterval: .zero)
        for seq in UInt16(10)..<13 { pacer.enqueue(media(seq), now: ms(0)) }
        let first = pacer.dequeue(now: ms(0))
        #expect(first?.sequenceNumber == SequenceNumber(10))
        pacer.enqueue(PacedPacket(sequenceNumber: SequenceNumber(3), size: 1200, kind: .retransmission), now: ms(1))
        let tooEarly = pacer.dequeue(now: ms(1))
        #expect(tooEarly == nil)  // still paying for packet 10
        let next = try #require(pacer.nextSendTime(now: ms(1)))
        let dequeued = pacer.dequeue(now: next)
        let packet = try #require(dequeued)
        #expect(packet.kind == .retransmission)
        #expect(packet.sequenceNumber == SequenceNumber(3))
        #expect(packet.enqueuedAt == ms(1))
        #expect(pacer.statistics.retransmissionsSent == 1)
    }

    @Test func queueLimitDropsOldestOrNewest() throws {
        var pacer = try Pacer(targetBitrate: 100_000, mediaQueueCapacity: 3)
        for seq in UInt16(0)..<3 {
            let dropped = pacer.enqueue(media(seq), now: ms(0))
            #expect(dropped == nil)
        }
        let dropped = pacer.enqueue(media(3), now: ms(0))
        #expect(dropped?.sequenceNumber == SequenceNumber(0))
        #expect(pacer.statistics.mediaPacketsDropped == 1)
        let first = pacer.dequeue(now: ms(0))
        #expect(first?.sequenceNumber == SequenceNumber(1))

        var strict = try Pacer(targetBitrate: 100_000, mediaQueueCapacity: 2, dropPolicy: .dropNewest)
        strict.enqueue(media(0), now: ms(0))
        strict.enqueue(media(1), now: ms(0))
        let refused = strict.enqueue(media(2), now: ms(0))
        #expect(refused?.sequenceNumber == SequenceNumber(2))
        #expect(strict.queuedPackets == 2)
        #expect(strict.queuedBytes == 2400)
    }

    /// A queue that cannot drain within the limit at the pacing rate raises the rate (libwebrtc's 2 s rule):
    /// 100 kbit/s x 2.5 = 31,250 bytes/s; 100 x 1,200 bytes would take 3.84 s.
    @Test func longQueueDrainsWithinTheTimeLimit() throws {
        var pacer = try Pacer(targetBitrate: 100_000, mediaQueueCapacity: 200)
        for seq in UInt16(0)..<100 { pacer.enqueue(media(seq), now: ms(0)) }
        #expect(pacer.effectivePacingBitrate(now: ms(0)) == 480_000)  // 120,000 bytes in 2 s
        let sent = drain(&pacer, from: ms(0))
        #expect(sent.count == 100)
        #expect(sent.last!.1 <= 2000)
        #expect(pacer.statistics.longestQueueDelay <= .seconds(2))
    }

    @Test func idleTimeDoesNotBuildCredit() throws {
        var pacer = try Pacer(targetBitrate: 1_600_000, burstInterval: .zero)
        pacer.enqueue(media(0), now: ms(0))
        let first = pacer.dequeue(now: ms(0))
        #expect(first != nil)
        for seq in UInt16(1)..<4 { pacer.enqueue(media(seq), now: ms(10_000)) }
        let sent = drain(&pacer, from: ms(10_000))
        #expect(sent.map(\.1).map { ($0 * 1000).rounded() / 1000 } == [10_000, 10_002.4, 10_004.8])
    }

    @Test func badConfiguration() {
        #expect(throws: PacerError.invalidPacingFactor(0.5)) { try Pacer(targetBitrate: 1, pacingFactor: 0.5) }
        do {
            _ = try Pacer(targetBitrate: 1, pacingFactor: .nan)
            Issue.record("NaN accepted")
        } catch {
            guard case .invalidPacingFactor(let value) = error, value.isNaN else { Issue.record("\(error)"); return }
        }
        #expect(throws: PacerError.invalidQueueCapacity(0)) { try Pacer(targetBitrate: 1, mediaQueueCapacity: 0) }
        #expect(throws: PacerError.invalidDuration(.seconds(2))) { try Pacer(targetBitrate: 1, burstInterval: .seconds(2)) }
    }

    /// The burst allowance changes at run time (the session moves it with the path's room); a bad value changes nothing.
    @Test func theBurstAllowanceChanges() throws {
        var pacer = try Pacer(targetBitrate: 1_000_000)
        #expect(pacer.burstInterval == Pacer.defaultBurstInterval)
        try pacer.setBurstInterval(Pacer.congestedBurstInterval)
        #expect(pacer.burstInterval == .milliseconds(5))
        #expect(throws: PacerError.invalidDuration(.milliseconds(-1))) { try pacer.setBurstInterval(.milliseconds(-1)) }
        #expect(pacer.burstInterval == .milliseconds(5))
        #expect(throws: PacerError.invalidDuration(.zero)) { try Pacer(targetBitrate: 1, queueTimeLimit: .zero) }
    }

    @Test func targetIsClamped() throws {
        var pacer = try Pacer(targetBitrate: -1)
        #expect(pacer.targetBitrate == Pacer.targetBitrateRange.lowerBound)
        pacer.setTargetBitrate(Int.max)
        #expect(pacer.targetBitrate == Pacer.targetBitrateRange.upperBound)
    }
}
