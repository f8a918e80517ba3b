import MediaTime
import Testing
import RTP
@testable import Codec

/// The resolution policy on its own: ladders, floors, the initial rung, immediate steps down, held and hysteretic
/// steps up, skip-driven steps down with back-off, and the three degradation preferences. Time is a fake clock.
@Suite struct QualityScalerTests {
    static let ladder720 = ResolutionLadder(width: 1280, height: 720)

    static func at(_ seconds: Double) -> MonotonicTime { MonotonicTime(nanoseconds: Int64(seconds * 1e9)) }

    @Test func laddersKeepTheAspectRatioAndEvenSizes() {
        #expect(Self.ladder720.rungs.map(\.description) == ["1280x720", "960x540", "640x360", "480x270", "320x180"])
        #expect(ResolutionLadder(width: 640, height: 360).rungs.map(\.description)
                == ["640x360", "480x270", "320x180", "240x136", "160x90"])
        #expect(ResolutionLadder(width: 1920, height: 1080).rungs.map(\.description)
                == ["1920x1080", "1440x810", "960x540", "720x406", "480x270"])
        #expect(ResolutionLadder(width: 16, height: 16).rungs.map(\.description) == ["16x16"])
        #expect(ResolutionLadder(width: 64, height: 32).rungs.map(\.description) == ["64x32", "48x24", "32x16"])
        for rung in ResolutionLadder(width: 1366, height: 768).rungs {
            #expect(rung.width % 2 == 0 && rung.height % 2 == 0, "\(rung)")
            #expect(abs(Double(rung.width) / Double(rung.height) - 1366.0 / 768) < 0.02, "\(rung)")
        }
    }

    @Test(arguments: [(2_500_000, "1280x720"), (1_200_000, "1280x720"), (829_440, "1280x720"), (829_439, "960x540"),
                      (600_000, "960x540"), (400_000, "640x360"), (250_000, "640x360"), (207_360, "640x360"), (207_359, "480x270"),
                      (100_000, "320x180"), (10_000, "320x180")])
    func theInitialRungFollowsTheStartBitrate(target: Int, size: String) {
        let scaler = QualityScaler(ladder: Self.ladder720, preference: .maintainFramerate, targetBitrate: target,
                                   frameRate: 30)
        #expect(scaler.rung.description == size)
    }

    @Test func floorsScaleWithPixelsAndFrameRate() {
        let scaler = QualityScaler(ladder: Self.ladder720, preference: .maintainFramerate, targetBitrate: 2_500_000,
                                   frameRate: 30)
        #expect(abs(scaler.floor(ofRung: 0, frameRate: 30) - 829_440) < 0.01)
        #expect(abs(scaler.floor(ofRung: 2, frameRate: 15) - 103_680) < 0.01)
        // At 15 fps 600k leaves room for 720p.
        #expect(scaler.bestRungIndex(targetBitrate: 600_000, frameRate: 15, hysteresis: 1) == 0)
    }

    @Test func aTargetBelowTheFloorStepsDownAtOnceToTheRungItAllows() {
        var scaler = QualityScaler(ladder: Self.ladder720, preference: .maintainFramerate, targetBitrate: 2_500_000,
                                   frameRate: 30)
        #expect(scaler.decide(targetBitrate: 2_500_000, frameRate: 30, now: Self.at(0)) == nil)
        let decision = scaler.decide(targetBitrate: 300_000, frameRate: 30, now: Self.at(0.1))
        #expect(decision == QualityScaler.Decision(rungIndex: 2, reason: .bitrateBelowFloor))
        #expect(scaler.rungIndex == 0, "decide does not apply")
        scaler.apply(decision!, now: Self.at(0.1))
        #expect(scaler.rung.description == "640x360")
        // A further drop right after a switch is applied at once too.
        #expect(scaler.decide(targetBitrate: 100_000, frameRate: 30, now: Self.at(0.2))
                == QualityScaler.Decision(rungIndex: 4, reason: .bitrateBelowFloor))
    }

    @Test func stepsUpOnlyAfterTheHoldTimeAndToTheRungTheTargetAllows() {
        var scaler = QualityScaler(ladder: Self.ladder720, preference: .maintainFramerate, targetBitrate: 300_000,
                                   frameRate: 30)
        #expect(scaler.rungIndex == 2)
        var now = 0.0
        var switchedAt: Double?
        while now < 10, switchedAt == nil {
            if let decision = scaler.decide(targetBitrate: 2_500_000, frameRate: 30, now: Self.at(now)) {
                #expect(decision == QualityScaler.Decision(rungIndex: 0, reason: .bitrateAllowsLarger))
                scaler.apply(decision, now: Self.at(now))
                switchedAt = now
            }
            scaler.recordFrame(skipped: false)
            now += 1.0 / 30
        }
        #expect(switchedAt.map { $0 >= 4 && $0 < 4.05 } == true, "switched at \(String(describing: switchedAt))")
    }

    @Test func aTargetHoveringAtAFloorDoesNotFlap() {
        var scaler = QualityScaler(ladder: Self.ladder720, preference: .maintainFramerate, targetBitrate: 1_000_000,
                                   frameRate: 30)
        #expect(scaler.rungIndex == 0)
        var switches = 0
        for frame in 0..<(120 * 30) {
            // 800k and 900k alternating every second: 720p's floor is 829.4k, its step-up threshold 953.9k.
            let target = (frame / 30) % 2 == 0 ? 800_000 : 900_000
            let now = Self.at(Double(frame) / 30)
            if let decision = scaler.decide(targetBitrate: target, frameRate: 30, now: now) {
                scaler.apply(decision, now: now)
                switches += 1
            }
            scaler.recordFrame(skipped: false)
        }
        #expect(switches == 1)
        #expect(scaler.rung.description == "960x540")
    }

    @Test func persistentSkippingStepsDownAndBacksOffBeforeTryingAgain() {
        var scaler = QualityScaler(ladder: Self.ladder720, preference: .maintainFramerate, targetBitrate: 2_500_000,
                                   frameRate: 30)
        var frame = 0
        var events: [(Double, QualityScaler.Decision)] = []
        // Skip 1 frame in 3 whenever the 720p rung is in use; never at 540p.
        while frame < 60 * 30 {
            let now = Self.at(Double(frame) / 30)
            if let decision = scaler.decide(targetBitrate: 2_500_000, frameRate: 30, now: now) {
                scaler.apply(decision, now: now)
                events.append((Double(frame) / 30, decision))
            }
            scaler.recordFrame(skipped: scaler.rungIndex == 0 && frame % 3 == 0)
            frame += 1
        }
        // Down after settling (1 s) and a full window (1 s); up after the 10 s back-off plus the 4 s hold; down
        // again; up after 20 s + 4 s; down again.
        let reasons = events.map(\.1.reason)
        #expect(reasons == [.frameSkipping, .bitrateAllowsLarger, .frameSkipping, .bitrateAllowsLarger, .frameSkipping],
                "\(events)")
        let times = events.map(\.0)
        if times.count == 5 {
            #expect(abs(times[0] - 2.0) < 0.1)
            #expect(abs(times[1] - times[0] - 14) < 0.1)
            #expect(abs(times[2] - times[1] - 3) < 0.1)  // the minimum switch interval
            #expect(abs(times[3] - times[2] - 24) < 0.1)
        }
        // The initial IDR's skips alone (in the settling second) do not step down.
        var fresh = QualityScaler(ladder: Self.ladder720, preference: .maintainFramerate, targetBitrate: 2_500_000,
                                  frameRate: 30)
        for f in 0..<300 {
            #expect(fresh.decide(targetBitrate: 2_500_000, frameRate: 30, now: Self.at(Double(f) / 30)) == nil)
            fresh.recordFrame(skipped: f > 0 && f < 9)
        }
    }

    @Test func aPreferenceChangeMovesIntoTheRungsTheNewPreferenceAllowsAndNothingElse() {
        var scaler = QualityScaler(ladder: Self.ladder720, preference: .maintainFramerate, targetBitrate: 300_000,
                                   frameRate: 30)
        #expect(scaler.rung.description == "640x360")
        // The same preference again: nothing.
        scaler.setPreference(.maintainFramerate)
        #expect(scaler.decide(targetBitrate: 300_000, frameRate: 30, now: Self.at(1)) == nil)
        // maintain-resolution: back to the input size at once, whatever the target.
        scaler.setPreference(.maintainResolution)
        #expect(scaler.preference == .maintainResolution)
        #expect(scaler.rungIndex == 2, "setPreference does not switch by itself")
        let back = scaler.decide(targetBitrate: 300_000, frameRate: 30, now: Self.at(1.1))
        #expect(back == QualityScaler.Decision(rungIndex: 0, reason: .preferenceChanged))
        scaler.apply(back!, now: Self.at(1.1))
        #expect(scaler.decide(targetBitrate: 300_000, frameRate: 30, now: Self.at(1.2)) == nil)
        // maintain-framerate again: down at once to the rung the target allows, reported as the preference's doing.
        scaler.setPreference(.maintainFramerate)
        let down = scaler.decide(targetBitrate: 300_000, frameRate: 30, now: Self.at(1.3))
        #expect(down == QualityScaler.Decision(rungIndex: 2, reason: .preferenceChanged))
        scaler.apply(down!, now: Self.at(1.3))
        // A later drop is the bitrate's.
        #expect(scaler.decide(targetBitrate: 100_000, frameRate: 30, now: Self.at(1.4))
                == QualityScaler.Decision(rungIndex: 4, reason: .bitrateBelowFloor))
        scaler.apply(QualityScaler.Decision(rungIndex: 4, reason: .bitrateBelowFloor), now: Self.at(1.4))
        // balanced never goes below half the input height: from 320x180 up to 640x360 at once.
        scaler.setPreference(.balanced)
        #expect(scaler.decide(targetBitrate: 100_000, frameRate: 30, now: Self.at(1.5))
                == QualityScaler.Decision(rungIndex: 2, reason: .preferenceChanged))
        // A change that leaves the size allowed decides nothing.
        var steady = QualityScaler(ladder: Self.ladder720, preference: .maintainFramerate, targetBitrate: 2_500_000,
                                   frameRate: 30)
        for (index, preference) in [DegradationPreference.balanced, .maintainResolution, .maintainFramerate].enumerated() {
            steady.setPreference(preference)
            #expect(steady.decide(targetBitrate: 2_500_000, frameRate: 30, now: Self.at(Double(index))) == nil,
                    "\(preference)")
        }
    }

    @Test(arguments: [("maintain-framerate", DegradationPreference.maintainFramerate),
                      (" Balanced\n", .balanced), ("MAINTAIN-RESOLUTION", .maintainResolution)])
    func preferenceNamesParse(text: String, preference: DegradationPreference) {
        #expect(DegradationPreference.parse(text) == .success(preference))
    }

    @Test(arguments: ["", "fast", "maintain_framerate", "maintain-framerate-", "balanced balanced",
                      String(repeating: "y", count: 100_000)])
    func badPreferenceNamesAreRefusedWithTheValidNames(text: String) {
        guard case .failure(let error) = DegradationPreference.parse(text) else {
            Issue.record("'\(text.prefix(20))' parsed")
            return
        }
        #expect(error.text == text)
        let shown = text.count > 40 ? String(text.prefix(40)) + "..." : text
        #expect(error.description == "unknown preference '\(shown)'; use maintain-framerate, maintain-resolution or balanced")
    }

    @Test func maintainResolutionNeverSwitches() {
        var scaler = QualityScaler(ladder: Self.ladder720, preference: .maintainResolution, targetBitrate: 100_000,
                                   frameRate: 30)
        #expect(scaler.rungIndex == 0)
        for frame in 0..<300 {
            #expect(scaler.decide(targetBitrate: 50_000, frameRate: 30, now: Self.at(Double(frame) / 30)) == nil)
            scaler.recordFrame(skipped: true)
        }
    }

    @Test func balancedKeepsLargerPicturesAndStopsAtHalfHeight() {
        let scaler = QualityScaler(ladder: Self.ladder720, preference: .balanced, targetBitrate: 400_000, frameRate: 30)
        #expect(scaler.rung.description == "960x540")  // 0.6 x 466.6k = 280k
        #expect(scaler.lowestAllowedIndex == 2)
        var low = QualityScaler(ladder: Self.ladder720, preference: .balanced, targetBitrate: 50_000, frameRate: 30)
        #expect(low.rung.description == "640x360")
        #expect(low.decide(targetBitrate: 10_000, frameRate: 30, now: Self.at(10)) == nil)
    }

    @Test func switchReasonsAndChangesReadWell() {
        let change = ResolutionChange(from: ResolutionRung(width: 1280, height: 720),
                                      to: ResolutionRung(width: 960, height: 540), reason: .bitrateBelowFloor)
        #expect(change.description == "1280x720 -> 960x540 (bitrate-below-floor)")
        #expect(DegradationPreference(rawValue: "maintain-framerate") == .maintainFramerate)
        #expect(DegradationPreference.allCases.map(\.description)
                == ["maintain-framerate", "maintain-resolution", "balanced"])
    }

    /// Hostile inputs to the pure policy give answers, not traps: huge sizes, NaN and infinite frame rates and
    /// hysteresis, extreme targets and times, degenerate settings.
    @Test func hostileInputsNeverTrap() {
        let huge = ResolutionLadder(width: .max - 1, height: .max - 1)
        #expect(huge.rungs[0].pixels == .max)
        var settings = QualityScaler.Settings()
        settings.skipWindowFrames = 0
        settings.settleFrames = -5
        settings.upHysteresis = .nan
        settings.skipBackoff = .seconds(Int64.max)
        settings.maximumSkipBackoff = .seconds(Int64.max)
        for ladder in [huge, Self.ladder720] {
            for fps in [Double.nan, .infinity, -.infinity, 0, -30, 1e300] {
                var scaler = QualityScaler(ladder: ladder, preference: .maintainFramerate, settings: settings,
                                           targetBitrate: .max, frameRate: fps)
                for (step, target) in [Int.max, .min, 0, 1].enumerated() {
                    let now = MonotonicTime(nanoseconds: step % 2 == 0 ? .max : .min)
                    if let decision = scaler.decide(targetBitrate: target, frameRate: fps, now: now) {
                        scaler.apply(decision, now: now)
                    }
                    scaler.recordFrame(skipped: true)
                    scaler.recordFrame(skipped: false)
                }
                #expect((0..<ladder.count).contains(scaler.rungIndex))
            }
        }
    }

    /// QP pinned at the ceiling (mean of the window at or above `highQP`) steps down one rung, with the same
    /// back-off as skipping; a mean just below does not.
    @Test func qpAtTheCeilingStepsDown() {
        for (qp, expected) in [(45, QualityScaler.Decision(rungIndex: 1, reason: .highQP)), (44, nil)] {
            var scaler = QualityScaler(ladder: Self.ladder720, preference: .maintainFramerate,
                                       targetBitrate: 2_500_000, frameRate: 30)
            var decision: QualityScaler.Decision?
            for frame in 0..<90 where decision == nil {
                decision = scaler.decide(targetBitrate: 2_500_000, frameRate: 30, now: Self.at(Double(frame) / 30))
                scaler.recordFrame(skipped: false, qp: qp)
            }
            #expect(decision == expected, "mean QP \(qp)")
            #expect(scaler.recentMeanQP == Double(qp))
        }
        // Skipped frames carry no QP; with fewer than half the window encoded there is no mean.
        var sparse = QualityScaler(ladder: Self.ladder720, preference: .maintainFramerate, targetBitrate: 2_500_000,
                                   frameRate: 30)
        for frame in 0..<60 { sparse.recordFrame(skipped: frame % 3 != 0, qp: 45) }
        #expect(sparse.recentMeanQP == nil)
    }
    /// A rung whose next smaller rung keeps the input's detail (a soft source) has its floor multiplied by
    /// `detailKeptFloorFactor`, in place of `balanced`'s factor; the others keep theirs. Below the threshold minus the
    /// hysteresis the floor comes back; between the two the state stays.
    @Test func aRungWhoseNextSmallerRungKeepsTheDetailHasItsFloorRaised() {
        for preference in [DegradationPreference.maintainFramerate, .balanced] {
            var scaler = QualityScaler(ladder: Self.ladder720, preference: preference, targetBitrate: 900_000,
                                       frameRate: 30)
            let usual = (0..<5).map { scaler.floor(ofRung: $0, frameRate: 30) }
            // The carphone clip (ResamplingLossMeter): 960x540 and 640x360 keep the detail, 480x270 does not.
            for (rung, psnr) in [(1, 51.6), (2, 53.0), (3, 43.1), (4, 39.2)] {
                scaler.recordResamplingPSNR(psnr, rung: rung)
            }
            #expect(scaler.resamplingPSNR == [nil, 51.6, 53.0, 43.1, 39.2])
            #expect(abs(scaler.floor(ofRung: 0, frameRate: 30) - 4 * 829_440) < 1, "\(preference)")
            #expect(abs(scaler.floor(ofRung: 1, frameRate: 30) - 4 * 466_560) < 1, "\(preference)")
            #expect(scaler.floor(ofRung: 2, frameRate: 30) == usual[2])
            #expect(scaler.floor(ofRung: 3, frameRate: 30) == usual[3])
            #expect(scaler.bestRungIndex(targetBitrate: 1_500_000, frameRate: 30, hysteresis: 1) == 2)
            #expect(scaler.bestRungIndex(targetBitrate: 2_500_000, frameRate: 30, hysteresis: 1) == 1)
            #expect(scaler.bestRungIndex(targetBitrate: 3_400_000, frameRate: 30, hysteresis: 1) == 0)
            // Hysteresis: 45.5 dB (within 1 dB of 46) keeps the state, 44.9 dB ends it.
            scaler.recordResamplingPSNR(45.5, rung: 1)
            #expect(abs(scaler.floor(ofRung: 0, frameRate: 30) - 4 * 829_440) < 1)
            scaler.recordResamplingPSNR(44.9, rung: 1)
            #expect(scaler.floor(ofRung: 0, frameRate: 30) == usual[0])
            scaler.recordResamplingPSNR(45.9, rung: 1)
            #expect(scaler.floor(ofRung: 0, frameRate: 30) == usual[0], "not kept until 46 dB again")
            // NaN and rungs outside the ladder are ignored; the input size itself is never measured.
            scaler.recordResamplingPSNR(.nan, rung: 2)
            scaler.recordResamplingPSNR(60, rung: 0)
            scaler.recordResamplingPSNR(60, rung: 5)
            scaler.recordResamplingPSNR(60, rung: .min)
            #expect(scaler.resamplingPSNR == [nil, 45.9, 53.0, 43.1, 39.2])
        }
    }

    /// On a source found soft the size steps down at once (the floor rose above the target); when the detail comes
    /// back the larger rung returns after the usual hold.
    @Test func aSoftSourceStepsDownAtOnceAndBackUpWhenTheDetailReturns() {
        var scaler = QualityScaler(ladder: Self.ladder720, preference: .maintainFramerate, targetBitrate: 1_200_000,
                                   frameRate: 30)
        #expect(scaler.rung.description == "1280x720")
        scaler.recordResamplingPSNR(51.6, rung: 1)
        scaler.recordResamplingPSNR(53.0, rung: 2)
        let down = scaler.decide(targetBitrate: 1_200_000, frameRate: 30, now: Self.at(1))
        #expect(down == QualityScaler.Decision(rungIndex: 2, reason: .bitrateBelowFloor))
        scaler.apply(down!, now: Self.at(1))
        scaler.recordResamplingPSNR(35, rung: 1)
        scaler.recordResamplingPSNR(35, rung: 2)
        var upAt: Double?
        var now = 1.0
        while now < 10, upAt == nil {
            if let decision = scaler.decide(targetBitrate: 1_200_000, frameRate: 30, now: Self.at(now)) {
                #expect(decision == QualityScaler.Decision(rungIndex: 0, reason: .bitrateAllowsLarger))
                scaler.apply(decision, now: Self.at(now))
                upAt = now
            }
            scaler.recordFrame(skipped: false)
            now += 1.0 / 30
        }
        #expect(upAt.map { $0 >= 5 && $0 < 5.05 } == true, "up at \(String(describing: upAt))")
    }

    /// `chooseInitialRung` picks the start rung again for the floors now in force.
    @Test func theInitialRungIsChosenAgainForASoftSource() {
        var scaler = QualityScaler(ladder: Self.ladder720, preference: .maintainFramerate, targetBitrate: 900_000,
                                   frameRate: 30)
        scaler.recordResamplingPSNR(51.6, rung: 1)
        scaler.recordResamplingPSNR(53.0, rung: 2)
        scaler.chooseInitialRung(targetBitrate: 900_000, frameRate: 30)
        #expect(scaler.rung.description == "640x360")
        var resolution = QualityScaler(ladder: Self.ladder720, preference: .maintainResolution,
                                       targetBitrate: 900_000, frameRate: 30)
        resolution.recordResamplingPSNR(51.6, rung: 1)
        resolution.chooseInitialRung(targetBitrate: 900_000, frameRate: 30)
        #expect(resolution.rungIndex == 0)
    }
}
