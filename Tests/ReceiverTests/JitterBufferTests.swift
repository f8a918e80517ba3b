import MediaTime
import RTP
import TestSupport
import Testing
@testable import Receiver

@Suite struct JitterBufferTests {
    func drain(_ buffer: inout JitterBuffer<String>, now: MonotonicTime) -> [String] {
        var out: [String] = []
        while let item = buffer.pop(now: now) {
            switch item {
            case .packet(let seq, let p): out.append("\(seq.rawValue):\(p)")
            case .lost(let first, let count): out.append("lost \(first.rawValue)+\(count)")
            }
        }
        return out
    }

    @Test func reordersWithinTheWait() throws {
        var buffer = try JitterBuffer<String>(capacity: 16, maximumWait: .milliseconds(50))
        #expect(buffer.insert("a", sequenceNumber: SequenceNumber(65534), now: ms(0)) == .stored)
        #expect(buffer.insert("d", sequenceNumber: SequenceNumber(1), now: ms(1)) == .stored)
        #expect(buffer.insert("c", sequenceNumber: SequenceNumber(0), now: ms(2)) == .stored)
        #expect(drain(&buffer, now: ms(3)) == ["65534:a"])
        #expect(buffer.nextDeadline == ms(52))  // 65535's wait runs from the arrival of the next packet present (0)
        #expect(buffer.insert("b", sequenceNumber: SequenceNumber(65535), now: ms(20)) == .stored)
        #expect(drain(&buffer, now: ms(20)) == ["65535:b", "0:c", "1:d"])
        #expect(buffer.releasedCount == 4)
        #expect(buffer.lostCount == 0)
    }

    @Test func gapIsReportedAfterTheWait() throws {
        var buffer = try JitterBuffer<String>(capacity: 16, maximumWait: .milliseconds(50))
        buffer.insert("a", sequenceNumber: SequenceNumber(10), now: ms(0))
        buffer.insert("e", sequenceNumber: SequenceNumber(14), now: ms(5))
        buffer.insert("g", sequenceNumber: SequenceNumber(16), now: ms(30))
        #expect(drain(&buffer, now: ms(54)) == ["10:a"])
        #expect(drain(&buffer, now: ms(55)) == ["lost 11+3", "14:e"])
        // The second hole became known when 16 arrived at 30 ms.
        #expect(buffer.nextDeadline == ms(80))
        #expect(drain(&buffer, now: ms(79)).isEmpty)
        #expect(drain(&buffer, now: ms(80)) == ["lost 15+1", "16:g"])
        #expect(buffer.lostCount == 4)
        #expect(buffer.nextDeadline == nil)
    }

    @Test func duplicatesLateAndJumps() throws {
        var buffer = try JitterBuffer<String>(capacity: 16, maximumWait: .milliseconds(50))
        buffer.insert("a", sequenceNumber: SequenceNumber(100), now: ms(0))
        buffer.insert("c", sequenceNumber: SequenceNumber(102), now: ms(0))
        #expect(buffer.insert("c2", sequenceNumber: SequenceNumber(102), now: ms(1)) == .duplicate)
        _ = drain(&buffer, now: ms(1))
        #expect(buffer.insert("z", sequenceNumber: SequenceNumber(99), now: ms(2)) == .late)
        #expect(buffer.insert("far", sequenceNumber: SequenceNumber(117), now: ms(3)) == .restarted)
        #expect(buffer.droppedOnRestart == 1)
        #expect(drain(&buffer, now: ms(3)) == ["117:far"])
        #expect(throws: JitterBufferError.invalidCapacity(100)) { try JitterBuffer<String>(capacity: 100) }
    }

    /// A skip gives up the hole and whatever is buffered before the target at once, across the wrap, and counts both.
    @Test func skipGivesUpEverythingBeforeTheTargetAtOnce() throws {
        var buffer = try JitterBuffer<String>(capacity: 16, maximumWait: .milliseconds(50))
        buffer.insert("a", sequenceNumber: SequenceNumber(65533), now: ms(0))
        buffer.insert("c", sequenceNumber: SequenceNumber(65535), now: ms(1))  // 65534 missing
        buffer.insert("e", sequenceNumber: SequenceNumber(1), now: ms(2))  // 0 missing
        buffer.insert("f", sequenceNumber: SequenceNumber(2), now: ms(3))
        #expect(drain(&buffer, now: ms(3)) == ["65533:a"])
        #expect(buffer.packet(at: SequenceNumber(1)) == "e")
        #expect(buffer.packet(at: SequenceNumber(0)) == nil)
        // Not ahead, or too far ahead: nothing changes.
        #expect(buffer.skip(to: SequenceNumber(65534)) == (0, 0))
        #expect(buffer.skip(to: SequenceNumber(65533)) == (0, 0))
        #expect(buffer.skip(to: SequenceNumber(65534 &+ 16)) == (0, 0))
        let skipped = buffer.skip(to: SequenceNumber(1))
        #expect(skipped == (lost: 2, dropped: 1))
        #expect(buffer.nextSequenceNumber == SequenceNumber(1))
        #expect(buffer.nextDeadline == nil)
        #expect(drain(&buffer, now: ms(4)) == ["1:e", "2:f"])
        #expect(buffer.lostCount == 2)
        #expect(buffer.droppedOnSkip == 1)
        #expect(buffer.bufferedCount == 0)
        #expect(buffer.insert("c", sequenceNumber: SequenceNumber(65535), now: ms(5)) == .late)
    }
}
