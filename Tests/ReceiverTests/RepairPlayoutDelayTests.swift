import MediaTime
import RTP
import Testing
@testable import Receiver

/// The receiver's repair delay: none on a clean path, a repaired frame's lateness (and the margin) once one was
/// repaired, frames after it handed on at their expected time plus that delay, and none again once the window holds
/// no repair.
@Suite struct RepairPlayoutDelayTests {
    /// Frame i of a 30 fps stream whose frames complete 40 ms after their media time (`late` more if repaired).
    static func complete(
        _ schedule: inout RepairPlayoutDelay, _ i: Int, late: Duration = .zero, repaired: Bool = false
    ) -> (completed: MonotonicTime, release: MonotonicTime) {
        let media = Duration.nanoseconds(Int64(i) * 1_000_000_000 / 30)
        let completed = MonotonicTime.zero + .seconds(5) + media + .milliseconds(40) + late
        let release = schedule.frameCompleted(
            timestamp: RTPTimestamp(UInt32(truncatingIfNeeded: 1_000 + i * 3_000)), completed: completed,
            repaired: repaired)
        return (completed, release)
    }

    @Test func aCleanPathPlaysAsFramesComplete() {
        var schedule = RepairPlayoutDelay(maximum: .seconds(1))
        for i in 0..<100 {
            let (completed, release) = Self.complete(&schedule, i)
            #expect(release == completed)
        }
        #expect(schedule.delay == .zero)
    }

    @Test func aRepairedFrameDelaysWhatFollows() {
        var schedule = RepairPlayoutDelay(maximum: .seconds(1))
        for i in 0..<30 { _ = Self.complete(&schedule, i) }
        // Frame 30 needed a NACK: 300 ms late. The delay is now 320 ms, and the playout runs that far behind the
        // expected times from this frame on (it goes the margin after it completes).
        let (completed, release) = Self.complete(&schedule, 30, late: .milliseconds(300), repaired: true)
        #expect(release == completed + .milliseconds(20))
        #expect(schedule.delay == .milliseconds(320))
        // Frame 31, on time, is handed on 320 ms after it completes: the picture flows a round trip behind.
        let next = Self.complete(&schedule, 31)
        #expect(next.release == next.completed + .milliseconds(320))
        // A later repair of 250 ms is within the delay: on time, no freeze.
        let within = Self.complete(&schedule, 60, late: .milliseconds(250), repaired: true)
        let expected = MonotonicTime.zero + .seconds(5) + .nanoseconds(2_000_000_000) + .milliseconds(40) + .milliseconds(320)
        #expect(within.release == expected)
        // A window of clean frames after the last repair: no delay.
        for i in 61...400 { _ = Self.complete(&schedule, i) }
        #expect(schedule.delay == .zero)
    }

    /// A repair that took two rounds (its retransmission was lost too) is covered for `memory` frames while repairs go
    /// on, not only for `window`: at 5 % loss with FEC such repairs come every 20-60 s, and each found the delay back at
    /// one round. A window without a repair forgets them all: no delay, and the next repair starts afresh.
    @Test func aTwoRoundRepairIsCoveredWhileRepairsGoOn() {
        var schedule = RepairPlayoutDelay(maximum: .seconds(2))
        for i in 0..<30 { _ = Self.complete(&schedule, i) }
        _ = Self.complete(&schedule, 30, late: .milliseconds(300), repaired: true)
        #expect(schedule.delay == .milliseconds(320))
        _ = Self.complete(&schedule, 60, late: .milliseconds(650), repaired: true)
        #expect(schedule.delay == .milliseconds(670))
        // One-round repairs every 100 frames: 1,000 frames (33 s) on, the two-round repair still sets the delay (it
        // left the 300-frame window long ago), and a second one is on time.
        for i in 61..<1_060 {
            _ = Self.complete(&schedule, i, late: i % 100 == 0 ? .milliseconds(300) : .zero, repaired: i % 100 == 0)
        }
        #expect(schedule.delay == .milliseconds(670))
        let again = Self.complete(&schedule, 1_060, late: .milliseconds(640), repaired: true)
        #expect(again.release == again.completed + .milliseconds(30))
        // Past the memory (1,800 frames after the last two-round repair) only the one-round repairs count.
        for i in 1_061..<2_900 {
            _ = Self.complete(&schedule, i, late: i % 100 == 0 ? .milliseconds(300) : .zero, repaired: i % 100 == 0)
        }
        #expect(schedule.delay == .milliseconds(320))
        // A window of clean frames: no delay.
        for i in 2_900..<3_201 { _ = Self.complete(&schedule, i) }
        #expect(schedule.delay == .zero)
        // The next repair sets the delay from itself, not from the 300 ms ones before the pause: bringing those back
        // would hold every frame after it 300 ms longer at once, a freeze of its own.
        let after = Self.complete(&schedule, 3_201, late: .milliseconds(40), repaired: true)
        #expect(after.release == after.completed + .milliseconds(20))
        #expect(schedule.delay == .milliseconds(60))
    }

    /// A repaired frame that completes before its expected time (an FEC recovery of a small frame can beat the
    /// window's fastest completion) was not late: the delay and the expectations stay. Starting over there (as for a
    /// clock jump) lost the delay, and the next repair froze the picture for a round trip.
    @Test func aRepairedFrameThatCompletesEarlyKeepsTheDelay() {
        var schedule = RepairPlayoutDelay(maximum: .seconds(2))
        for i in 0..<30 { _ = Self.complete(&schedule, i) }
        _ = Self.complete(&schedule, 30, late: .milliseconds(300), repaired: true)
        #expect(schedule.delay == .milliseconds(320))
        // Frame 31 completes 10 ms before the fastest completion of the window, and was repaired (FEC).
        let early = Self.complete(&schedule, 31, late: .milliseconds(-10), repaired: true)
        #expect(early.release == early.completed + .milliseconds(330))
        #expect(schedule.delay == .milliseconds(320))
        // The next repair of 300 ms is on time: no freeze.
        let next = Self.complete(&schedule, 32, late: .milliseconds(300), repaired: true)
        #expect(next.release == next.completed + .milliseconds(20))
    }

    @Test func theDelayStaysWithinTheMaximum() {
        var schedule = RepairPlayoutDelay(maximum: .milliseconds(500))
        for i in 0..<10 { _ = Self.complete(&schedule, i) }
        _ = Self.complete(&schedule, 10, late: .seconds(2), repaired: true)
        #expect(schedule.delay == .milliseconds(500))
        var none = RepairPlayoutDelay(maximum: .zero)
        _ = Self.complete(&none, 0)
        let (completed, release) = Self.complete(&none, 1, late: .milliseconds(300), repaired: true)
        #expect(release == completed)
        #expect(none.delay == .zero)
    }
}

extension RepairPlayoutDelayTests {
    /// A sender that restarts its RTP clock (timestamps far ahead or behind) does not hold frames for the jump, nor
    /// take the jump for a repair time: the schedule starts over.
    @Test func aTimestampJumpStartsOver() {
        var schedule = RepairPlayoutDelay(maximum: .seconds(2))
        for i in 0..<30 { _ = Self.complete(&schedule, i) }
        // Repaired, and its timestamp an hour ahead: handed on when it completes, no delay taken from it.
        let ahead = schedule.frameCompleted(
            timestamp: RTPTimestamp(UInt32(1_000 + 30 * 3_000 + 90_000 * 3600)), completed: MonotonicTime.zero + .seconds(6),
            repaired: true)
        #expect(ahead == MonotonicTime.zero + .seconds(6))
        #expect(schedule.delay == .zero)
        // Repaired, and an hour behind the frames before the reset: no 2 s delay from it either.
        var behind = RepairPlayoutDelay(maximum: .seconds(2))
        for i in 0..<30 { _ = Self.complete(&behind, i + 108_000) }
        let late = behind.frameCompleted(
            timestamp: RTPTimestamp(1_000), completed: MonotonicTime.zero + .seconds(3_700), repaired: true)
        #expect(late == MonotonicTime.zero + .seconds(3_700))
        #expect(behind.delay == .zero)
        // After a reset the next repair counts again.
        behind.reset()
        #expect(behind.delay == .zero)
    }
}
