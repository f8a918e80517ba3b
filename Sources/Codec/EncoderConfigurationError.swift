/// Why an encoder configuration, or a runtime rate change, was refused. Each case names the limit it hit.
public enum EncoderConfigurationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Width or height is odd (4:2:0 needs even sizes).
    case oddSize(width: Int, height: Int)
    /// Width or height is below the minimum.
    case sizeTooSmall(width: Int, height: Int, minimum: Int)
    /// The frame rate is outside what OpenH264 accepts.
    case frameRateOutOfRange(Double, supported: ClosedRange<Double>)
    /// A bitrate is zero or negative.
    case bitrateNotPositive(Int)
    /// The target is below `EncoderConfiguration.minimumBitrate`.
    case bitrateBelowMinimum(Int, minimum: Int)
    /// The ceiling is below the target.
    case maxBitrateBelowTarget(target: Int, maxBitrate: Int)
    /// The frame has more macroblocks than the level's MaxFS (Table A-1).
    case frameSizeExceedsLevel(macroblocks: Int, maxFrameSize: Int, level: H264Level)
    /// One dimension exceeds sqrt(8 x MaxFS) macroblocks (H.264 A.3.1 items f and g).
    case dimensionExceedsLevel(macroblocks: Int, limit: Int, level: H264Level)
    /// Macroblocks per second exceed the level's MaxMBPS (Table A-1).
    case macroblockRateExceedsLevel(macroblocksPerSecond: Double, maxMacroblocksPerSecond: Int, level: H264Level)
    /// A bitrate exceeds the level's MaxBR for the profile (Table A-1 x Table A-2 factor).
    case bitrateExceedsLevel(bitrate: Int, maxBitrate: Int, level: H264Level, profile: EncoderProfile)
    /// The keyframe interval in frames is not positive.
    case keyframeIntervalNotPositive(Int)
    /// The keyframe interval in time is not positive.
    case keyframeDurationNotPositive(Duration)
    /// The keyframe interval in time is above the maximum.
    case keyframeDurationTooLong(Duration, maximum: Duration)
    /// The thread count is outside 1...`maximum`.
    case threadCountOutOfRange(Int, maximum: Int)
    /// The QP window reaches outside what OpenH264 applies.
    case qpRangeOutOfBounds(ClosedRange<Int>, supported: ClosedRange<Int>)
    /// The maximum NAL unit size is too small for OpenH264's size-limited slices.
    case maxNALUnitSizeTooSmall(Int, minimum: Int)
    /// The maximum NAL unit size is above what one RTP packet can carry.
    case maxNALUnitSizeTooLarge(Int, maximum: Int)
    /// The number of temporal layers is outside what is supported (L1T1 to L1T3).
    case temporalLayersOutOfRange(Int, supported: ClosedRange<Int>)

    /// A readable explanation naming the limit.
    public var description: String {
        switch self {
        case .oddSize(let w, let h): return "frame size \(w)x\(h) must be even in both dimensions (4:2:0)"
        case .sizeTooSmall(let w, let h, let m): return "frame size \(w)x\(h) is below the minimum \(m)x\(m)"
        case .frameRateOutOfRange(let f, let r):
            return "frame rate \(f) is outside the supported range \(r.lowerBound)...\(r.upperBound)"
        case .bitrateNotPositive(let b): return "bitrate \(b) bit/s must be positive"
        case .bitrateBelowMinimum(let b, let m): return "bitrate \(b) bit/s is below the minimum \(m) bit/s"
        case .maxBitrateBelowTarget(let t, let m): return "maximum bitrate \(m) bit/s is below the target \(t) bit/s"
        case .frameSizeExceedsLevel(let mbs, let limit, let level):
            return "frame of \(mbs) macroblocks exceeds level \(level) MaxFS \(limit) macroblocks (H.264 Table A-1)"
        case .dimensionExceedsLevel(let mbs, let limit, let level):
            return "a dimension of \(mbs) macroblocks exceeds level \(level) limit sqrt(8*MaxFS) = \(limit) (H.264 A.3.1)"
        case .macroblockRateExceedsLevel(let rate, let limit, let level):
            return "\(EncoderConfigurationError.integerText(rate)) macroblocks/s exceeds level \(level) MaxMBPS \(limit) (H.264 Table A-1)"
        case .bitrateExceedsLevel(let b, let limit, let level, let profile):
            return "bitrate \(b) bit/s exceeds level \(level) MaxBR \(limit) bit/s for \(profile) (H.264 Table A-1)"
        case .keyframeIntervalNotPositive(let n): return "keyframe interval \(n) frames must be positive"
        case .keyframeDurationNotPositive(let d): return "keyframe interval duration \(d) must be positive"
        case .threadCountOutOfRange(let n, let m): return "thread count \(n) is outside 1...\(m)"
        case .maxNALUnitSizeTooSmall(let n, let m): return "maximum NAL unit size \(n) is below the minimum \(m) bytes"
        case .qpRangeOutOfBounds(let r, let s):
            return "QP range \(r.lowerBound)...\(r.upperBound) is outside \(s.lowerBound)...\(s.upperBound)"
        case .maxNALUnitSizeTooLarge(let n, let m): return "maximum NAL unit size \(n) is above the maximum \(m) bytes"
        case .temporalLayersOutOfRange(let n, let s):
            return "\(n) temporal layers is outside \(s.lowerBound)...\(s.upperBound)"
        case .keyframeDurationTooLong(let d, let m): return "keyframe interval duration \(d) is above the maximum \(m)"
        }
    }

    /// `value` as an integer when it is one that fits, else as a `Double` (never traps, whatever the value).
    static func integerText(_ value: Double) -> String {
        guard value.isFinite, abs(value) < 1e15 else { return "\(value)" }
        return "\(Int(value.rounded()))"
    }
}
