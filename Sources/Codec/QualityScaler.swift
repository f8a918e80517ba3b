import MediaTime

/// Decides the picture size to encode at, as libwebrtc's quality scaler and bitrate-based resolution limits do for a
/// "maintain framerate" stream: an initial rung from the start bitrate, a step down when the target falls below the
/// current rung's floor, when rate control keeps skipping frames or keeps QP high, a step up only when the target has had room for a
/// larger rung for a while (hysteresis), never flapping.
///
/// Pure state: the target, the frame rate, each frame's outcome and the time (`MonotonicTime`) come in as values;
/// nothing is read from a clock, nothing is allocated per frame (the skip history is a fixed ring).
///
/// Floors: a rung of `w x h` at `fps` needs at least `minimumBitsPerPixel x w x h x fps` bit/s. The default was
/// measured (Docs/Encoder.md, "Resolution adaptation"): the target where the next smaller rung starts to give a
/// better delivered PSNR-Y (scaled back to the input size) on the benchmark contents. A rung whose next smaller rung
/// keeps the input's detail (`recordResamplingPSNR(_:rung:)` at least `Settings.detailKeptPSNR`: a soft source) has its
/// floor multiplied by `Settings.detailKeptFloorFactor` (in place of `balanced`'s factor): its extra pixels carry no
/// detail, and spending the bits on fewer pixels gives the better picture (measured on real footage, Docs/Encoder.md "Soft sources").
public struct QualityScaler: Sendable {
    /// The tunables, with measured defaults.
    public struct Settings: Sendable, Equatable {
        /// Bits per pixel per frame below which a rung is too large for the target.
        public var minimumBitsPerPixel: Double
        /// A larger rung is considered only when the target is at least this multiple of its floor (so that a target
        /// hovering at a floor cannot make the size flap).
        public var upHysteresis: Double
        /// How long the target must leave room for a larger rung (with skipping below half `skipRatioToStepDown`)
        /// before stepping up.
        public var upHoldTime: Duration
        /// The least time between two switches, except a step down for a target below the floor (applied at once).
        public var minimumSwitchInterval: Duration
        /// Frames over which skips are counted.
        public var skipWindowFrames: Int
        /// Frames ignored by the skip count after the start and after each switch: the first IDR at a size makes rate
        /// control skip a few frames whatever the content (measured: up to 8 on the noisy source at 720p/2.5M, which
        /// then encodes without skipping), and that must not read as "this size is too large".
        public var settleFrames: Int
        /// Step down one rung when at least this share of the last `skipWindowFrames` frames was skipped.
        public var skipRatioToStepDown: Double
        /// Step down one rung when the mean QP of the encoded frames in the window is at least this (QP read from the
        /// slice headers, `EncodeStatistics.averageQP`): QP pinned at the ceiling, the state just before rate control
        /// starts skipping. The default is the default QP ceiling, 45 (`AdaptiveH264Encoder` lowers it to the
        /// configuration's ceiling if that is lower). Measured (Docs/Encoder.md): a lower threshold, 42, where the
        /// smaller rung starts to give the better picture, gained up to 0.3 dB on some contents and lost 0.3 dB on
        /// others, and its extra IDRs pushed the busiest 1 s window to 1.34x the target.
        public var highQP: Int
        /// After a step down for skipping or high QP, how long the rung left stays closed to a step up; doubled each time the
        /// same rung is left for skipping again, up to `maximumSkipBackoff`.
        public var skipBackoff: Duration
        /// The longest `skipBackoff` grows to.
        public var maximumSkipBackoff: Duration
        /// `balanced` scales every floor by this factor (it keeps a larger picture longer, letting rate control skip).
        public var balancedFloorFactor: Double
        /// `balanced` never goes below the rung at least this fraction of the input height high.
        public var balancedLowestHeightFraction: Double
        /// A rung keeps the input's detail when the input scaled down to it and back up has at least this PSNR-Y
        /// against the input (`ResamplingLossMeter`). Measured (Docs/Encoder.md, "Soft sources"): the carphone clip,
        /// upscaled from 176x144, keeps 51.6 dB at 960x540 and 53.0 dB at 640x360 (43.1 dB at 480x270, where
        /// 640x360 is the better picture); the sharp contents keep at most 40.2 dB at 960x540 (testsrc2 37.0,
        /// mandelbrot 35.0, the noisy source 31.8, OpenCV's vtest street scene 40.2).
        public var detailKeptPSNR: Double
        /// A rung stops counting as keeping the detail only below `detailKeptPSNR` minus this (dB), so that a
        /// measure hovering at the threshold cannot make the floors, and so the size, flap.
        public var detailKeptHysteresis: Double
        /// The floor of a rung whose next smaller rung keeps the detail is multiplied by this. Measured on the
        /// carphone clip (Docs/Encoder.md, "Soft sources"): 640x360 gives the best delivered PSNR-Y from 250k to
        /// 1.5M and ties 960x540 at 2.5M, where 1280x720 is 0.77 dB behind: any factor from 3.3 up chooses within
        /// 0.3 dB of the best rung at every measured target; 4 still lets 960x540 in from 1.87M and 1280x720 from
        /// 3.3M, for a soft source at rates the benchmark does not reach.
        public var detailKeptFloorFactor: Double
        /// `AdaptiveH264Encoder` measures one smaller rung's resampling PSNR every this many input frames, in turn
        /// (all of them on the first frame): about one measurement a second at 30 fps, each a scale down and up of
        /// one picture and a PSNR-Y.
        public var detailMeasureInterval: Int

        /// The measured defaults (Docs/Encoder.md).
        public init(minimumBitsPerPixel: Double = 0.030, upHysteresis: Double = 1.15, upHoldTime: Duration = .seconds(4),
                    minimumSwitchInterval: Duration = .seconds(3), skipWindowFrames: Int = 30, settleFrames: Int = 30,
                    skipRatioToStepDown: Double = 0.2, highQP: Int = 45, skipBackoff: Duration = .seconds(10),
                    maximumSkipBackoff: Duration = .seconds(80), balancedFloorFactor: Double = 0.6,
                    balancedLowestHeightFraction: Double = 0.5, detailKeptPSNR: Double = 46,
                    detailKeptHysteresis: Double = 1, detailKeptFloorFactor: Double = 4,
                    detailMeasureInterval: Int = 30) {
            self.minimumBitsPerPixel = minimumBitsPerPixel
            self.upHysteresis = upHysteresis
            self.upHoldTime = upHoldTime
            self.minimumSwitchInterval = minimumSwitchInterval
            self.skipWindowFrames = skipWindowFrames
            self.settleFrames = settleFrames
            self.skipRatioToStepDown = skipRatioToStepDown
            self.highQP = highQP
            self.skipBackoff = skipBackoff
            self.maximumSkipBackoff = maximumSkipBackoff
            self.balancedFloorFactor = balancedFloorFactor
            self.balancedLowestHeightFraction = balancedLowestHeightFraction
            self.detailKeptPSNR = detailKeptPSNR
            self.detailKeptHysteresis = detailKeptHysteresis
            self.detailKeptFloorFactor = detailKeptFloorFactor
            self.detailMeasureInterval = detailMeasureInterval
        }
    }

    /// A decision: encode at `ladder.rungs[rungIndex]` from the next frame, for `reason`.
    public struct Decision: Sendable, Equatable {
        /// The rung to switch to.
        public var rungIndex: Int
        /// Why.
        public var reason: ResolutionSwitchReason
    }

    /// The sizes available.
    public let ladder: ResolutionLadder
    /// What to give up first (changed at run time with `setPreference(_:)`).
    public private(set) var preference: DegradationPreference
    /// The tunables.
    public let settings: Settings
    /// The rung in use.
    public private(set) var rungIndex: Int
    /// The rung in use, as a size.
    public var rung: ResolutionRung { ladder.rungs[rungIndex] }

    /// Per rung: the last resampling PSNR-Y recorded (nil: not measured; `rungs[0]` is never measured).
    public private(set) var resamplingPSNR: [Double?]
    /// Per rung: whether it keeps the input's detail (see `Settings.detailKeptPSNR`).
    private var keepsDetail: [Bool]
    private var lastSwitch: MonotonicTime?
    /// Set by `setPreference(_:)` until the next `decide`: a switch it asks for is reported as `preferenceChanged`.
    private var preferenceJustChanged = false
    private var upCandidateSince: MonotonicTime?
    /// Ring of the last `skipWindowFrames` outcomes (true: skipped).
    private var skipRing: [Bool]
    private var skipRingPosition = 0
    private var skipRingFilled = 0
    private var skipsInRing = 0
    /// Frames still to ignore before counting skips (see `Settings.settleFrames`).
    private var framesToSettle: Int
    /// Ring of the QP of the last `skipWindowFrames` frames (0: skipped or unknown), and its sum and count.
    private var qpRing: [Int]
    private var qpSum = 0
    private var qpCount = 0
    /// Per rung: closed to step-ups until this time after a step down for skipping.
    private var upBlockedUntil: [MonotonicTime]
    /// Per rung: the back-off the next step down for skipping from it will impose.
    private var nextBackoff: [Duration]

    /// Creates the policy and chooses the initial rung for the start bitrate.
    /// - Parameters:
    ///   - ladder: the sizes available.
    ///   - preference: what to give up first (`maintainResolution` always stays at `ladder.rungs[0]`).
    ///   - settings: the tunables.
    ///   - targetBitrate: the start target, bit/s.
    ///   - frameRate: frames per second.
    public init(ladder: ResolutionLadder, preference: DegradationPreference, settings: Settings = Settings(),
                targetBitrate: Int, frameRate: Double) {
        self.ladder = ladder
        self.preference = preference
        self.settings = settings
        self.rungIndex = 0
        skipRing = Array(repeating: false, count: max(1, settings.skipWindowFrames))
        qpRing = Array(repeating: 0, count: max(1, settings.skipWindowFrames))
        framesToSettle = max(0, settings.settleFrames)
        upBlockedUntil = Array(repeating: MonotonicTime(nanoseconds: .min), count: ladder.count)
        nextBackoff = Array(repeating: settings.skipBackoff, count: ladder.count)
        resamplingPSNR = Array(repeating: nil, count: ladder.count)
        keepsDetail = Array(repeating: false, count: ladder.count)
        rungIndex = bestRungIndex(targetBitrate: targetBitrate, frameRate: frameRate, hysteresis: 1)
    }

    /// The lowest rung this preference may use.
    public var lowestAllowedIndex: Int {
        switch preference {
        case .maintainResolution: return 0
        case .maintainFramerate: return ladder.count - 1
        case .balanced:
            let height = Double(ladder.rungs[0].height) * settings.balancedLowestHeightFraction
            return ladder.lowestIndex(notBelowHeight: Int(height.rounded(.up)))
        }
    }

    /// The floor of rung `index` at `frameRate`: the least target it is used at, bit/s (raised by
    /// `Settings.detailKeptFloorFactor` when the next smaller rung keeps the input's detail).
    /// - Parameters:
    ///   - index: a rung index.
    ///   - frameRate: frames per second.
    public func floor(ofRung index: Int, frameRate: Double) -> Double {
        // A rung whose extra pixels carry no detail: `balanced` has nothing to keep it for either.
        let keptBelow = index + 1 < ladder.count && keepsDetail[index + 1]
        let factor = keptBelow ? settings.detailKeptFloorFactor
            : preference == .balanced ? settings.balancedFloorFactor : 1
        // Rounded up to whole bit/s (less a rounding error of the product, so 0.030 x 921600 x 30 is 829440).
        let exact = settings.minimumBitsPerPixel * factor * Double(ladder.rungs[index].pixels) * frameRate
        return (exact - 1e-6).rounded(.up)
    }

    /// The largest rung whose floor times `hysteresis` the target reaches (the lowest allowed rung if none).
    /// - Parameters:
    ///   - targetBitrate: bit/s.
    ///   - frameRate: frames per second.
    ///   - hysteresis: a factor on the floors (1 to stay, `upHysteresis` to go up).
    public func bestRungIndex(targetBitrate: Int, frameRate: Double, hysteresis: Double) -> Int {
        let lowest = lowestAllowedIndex
        for index in 0..<lowest where Double(targetBitrate) >= floor(ofRung: index, frameRate: frameRate) * hysteresis {
            return index
        }
        return lowest
    }

    /// Records how much of the input's detail rung `index` keeps (`ResamplingLossMeter`); the floor of the rung above
    /// it follows from the next `decide` on (a higher floor steps down at once, a lower one lets the size step up after
    /// `Settings.upHoldTime`).
    /// - Parameters:
    ///   - psnr: the PSNR-Y of an input picture scaled to the rung and back, dB (NaN is ignored).
    ///   - index: a rung index from 1 (others are ignored).
    public mutating func recordResamplingPSNR(_ psnr: Double, rung index: Int) {
        guard index >= 1, index < ladder.count, !psnr.isNaN else { return }
        resamplingPSNR[index] = psnr
        if psnr >= settings.detailKeptPSNR {
            keepsDetail[index] = true
        } else if psnr < settings.detailKeptPSNR - settings.detailKeptHysteresis {
            keepsDetail[index] = false
        }
    }

    /// Chooses the rung again as at the start, for the current floors (after the first resampling measurements,
    /// before the first frame is encoded).
    /// - Parameters:
    ///   - targetBitrate: the target, bit/s.
    ///   - frameRate: frames per second.
    public mutating func chooseInitialRung(targetBitrate: Int, frameRate: Double) {
        rungIndex = bestRungIndex(targetBitrate: targetBitrate, frameRate: frameRate, hysteresis: 1)
    }

    /// Changes what to give up first. Nothing else changes now: the next `decide` moves into the rungs the new
    /// preference allows if the current one is outside them (`maintainResolution`: back to the input size;
    /// `balanced`: not below its lowest rung; `maintainFramerate`: not above the current floor), with reason
    /// `preferenceChanged`; otherwise the size stays and later decisions follow the new preference.
    /// - Parameter preference: the new preference (the same one again changes nothing).
    public mutating func setPreference(_ preference: DegradationPreference) {
        guard preference != self.preference else { return }
        self.preference = preference
        preferenceJustChanged = true
        upCandidateSince = nil
    }

    /// Records the outcome of one input frame at the current rung.
    /// - Parameters:
    ///   - skipped: whether rate control skipped it.
    ///   - qp: its QP when it was encoded and the QP is known.
    public mutating func recordFrame(skipped: Bool, qp: Int? = nil) {
        if framesToSettle > 0 {
            framesToSettle -= 1
            return
        }
        if skipRingFilled == skipRing.count {
            if skipRing[skipRingPosition] { skipsInRing -= 1 }
            if qpRing[skipRingPosition] > 0 {
                qpSum -= qpRing[skipRingPosition]
                qpCount -= 1
            }
        } else {
            skipRingFilled += 1
        }
        skipRing[skipRingPosition] = skipped
        if skipped { skipsInRing += 1 }
        let value = skipped ? 0 : min(max(qp ?? 0, 0), 51)
        qpRing[skipRingPosition] = value
        if value > 0 {
            qpSum += value
            qpCount += 1
        }
        skipRingPosition = (skipRingPosition + 1) % skipRing.count
    }

    /// The mean QP of the encoded frames in the window, once it has filled at the current rung with at least half
    /// of its frames carrying a QP (nil before).
    public var recentMeanQP: Double? {
        guard skipRingFilled == skipRing.count, qpCount * 2 >= skipRing.count, qpCount > 0 else { return nil }
        return Double(qpSum) / Double(qpCount)
    }

    /// The share of skipped frames in the window, once it has filled at the current rung (nil before).
    public var recentSkipRatio: Double? {
        skipRingFilled == skipRing.count ? Double(skipsInRing) / Double(skipRing.count) : nil
    }

    /// Whether the frame about to be encoded should be at another size, and which. Does not change the state: call
    /// `apply(_:now:)` once the switch has been made (so that a failed switch leaves the policy as it was).
    /// - Parameters:
    ///   - targetBitrate: the target in force, bit/s.
    ///   - frameRate: frames per second.
    ///   - now: the current time.
    /// - Returns: the decision, or nil to stay.
    public mutating func decide(targetBitrate: Int, frameRate: Double, now: MonotonicTime) -> Decision? {
        let afterPreferenceChange = preferenceJustChanged
        preferenceJustChanged = false
        // 0. The preference changed to one that does not allow the size in use: into its range, at once.
        if preference == .maintainResolution {
            return rungIndex == 0 ? nil : Decision(rungIndex: 0, reason: .preferenceChanged)
        }
        // 1. Below the floor: straight to the rung the target allows, at once (after a change of preference, also a
        // larger rung than `maintainFramerate` or `balanced` allows at this target).
        let allowed = bestRungIndex(targetBitrate: targetBitrate, frameRate: frameRate, hysteresis: 1)
        if allowed > rungIndex {
            return Decision(rungIndex: allowed, reason: afterPreferenceChange ? .preferenceChanged : .bitrateBelowFloor)
        }
        // A smaller rung than the preference allows at all (`maintainFramerate` -> `balanced` at 320x180): up to the
        // rung the target allows, at once.
        if rungIndex > lowestAllowedIndex {
            return Decision(rungIndex: allowed, reason: .preferenceChanged)
        }
        let settled = lastSwitch.map { now - $0 >= settings.minimumSwitchInterval } ?? true
        // 2. Rate control keeps skipping at this size: one rung down.
        if let ratio = recentSkipRatio, ratio >= settings.skipRatioToStepDown, rungIndex < lowestAllowedIndex,
           settled {
            return Decision(rungIndex: rungIndex + 1, reason: .frameSkipping)
        }
        // 3. Rate control keeps QP near its ceiling at this size: one rung down.
        if let qp = recentMeanQP, qp >= Double(settings.highQP), rungIndex < lowestAllowedIndex, settled {
            return Decision(rungIndex: rungIndex + 1, reason: .highQP)
        }
        // 4. Room for a larger rung, held for upHoldTime, with no recent skipping, not into a rung still closed.
        var candidate = rungIndex
        let roomFor = bestRungIndex(targetBitrate: targetBitrate, frameRate: frameRate,
                                    hysteresis: settings.upHysteresis)
        while candidate > roomFor, upBlockedUntil[candidate - 1] <= now { candidate -= 1 }
        // An occasional skip does not hold a step up back (it may come from the lower target just left); skipping at
        // half the step-down ratio or more does.
        let skippingHere = Double(skipsInRing) >= settings.skipRatioToStepDown / 2 * Double(skipRing.count)
        guard candidate < rungIndex, !skippingHere else {
            upCandidateSince = nil
            return nil
        }
        let since = upCandidateSince ?? now
        upCandidateSince = since
        guard now - since >= settings.upHoldTime, settled else { return nil }
        return Decision(rungIndex: candidate, reason: .bitrateAllowsLarger)
    }

    /// Records that the encoder now runs at `decision.rungIndex`.
    /// - Parameters:
    ///   - decision: what `decide` returned (and the caller carried out).
    ///   - now: the current time.
    public mutating func apply(_ decision: Decision, now: MonotonicTime) {
        if decision.reason == .frameSkipping || decision.reason == .highQP {
            let left = rungIndex
            upBlockedUntil[left] = now + nextBackoff[left]
            nextBackoff[left] = min(nextBackoff[left] * 2, settings.maximumSkipBackoff)
        }
        rungIndex = min(max(decision.rungIndex, 0), ladder.count - 1)
        lastSwitch = now
        upCandidateSince = nil
        skipRingFilled = 0
        skipRingPosition = 0
        skipsInRing = 0
        qpSum = 0
        qpCount = 0
        framesToSettle = max(0, settings.settleFrames)
    }
}
