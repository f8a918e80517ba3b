import RTP
import TestSupport
import Testing
@testable import Receiver

@Suite struct FreezeDetectorTests {
    /// 30 fps (33 ms) then one gap: the threshold is max(3 x avg, avg + 150 ms) with the gap in the average.
    @Test(arguments: [
        (150, false),  // avg (29 x 33 + 150) / 30 = 36 -> threshold 186
        (186, false),  // avg 37 -> threshold 187
        (188, true),  // avg 37 -> threshold 187
        (2800, true),
    ])
    func thresholdAfterSteadyThirtyFPS(gap: Int64, isFreeze: Bool) {
        var detector = FreezeDetector()
        var t: Int64 = 0
        for _ in 0...40 {
            detector.frameRendered(at: ms(t))
            t += 33
        }
        t += gap - 33
        let freeze = detector.frameRendered(at: ms(t))
        #expect((freeze != nil) == isFreeze)
        #expect(detector.freezeCount == (isFreeze ? 1 : 0))
    }

    @Test func countsTotalAndLongest() {
        var detector = FreezeDetector()
        var t: Int64 = 0
        func frames(_ n: Int, every step: Int64) {
            for _ in 0..<n {
                t += step
                detector.frameRendered(at: ms(t))
            }
        }
        frames(31, every: 40)
        frames(1, every: 500)
        frames(31, every: 40)
        frames(1, every: 1200)
        frames(10, every: 40)
        #expect(detector.freezeCount == 2)
        #expect(detector.totalFreezesDuration == .milliseconds(1700))
        #expect(detector.longestFreeze == .milliseconds(1200))
        #expect(detector.framesRendered == 74)
    }

    @Test func noDetectionBeforeFiveIntervals() {
        var detector = FreezeDetector()
        for t: Int64 in [0, 33, 66, 99] { detector.frameRendered(at: ms(t)) }
        #expect(detector.frameRendered(at: ms(2000)) == nil)  // only the 4th interval
        #expect(detector.frameRendered(at: ms(5000)) != nil)  // 5th interval, avg 1000 -> threshold 3000
    }
}
