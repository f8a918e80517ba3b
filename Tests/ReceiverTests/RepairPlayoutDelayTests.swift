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
