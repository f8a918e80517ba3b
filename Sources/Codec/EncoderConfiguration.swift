/// Everything the real-time H.264 encoder needs, validated up front (`validate()`), as WebRTC configures a hardware
/// encoder: real-time camera usage, CBR with a ceiling, no B-frames, Constrained Baseline or High at a given level,
/// IDR frames on a frame count or a time interval, whichever comes first.
public struct EncoderConfiguration: Sendable, Equatable {
    /// Picture width in pixels (even, at least `minimumDimension`).
    public var width: Int
    /// Picture height in pixels (even, at least `minimumDimension`).
    public var height: Int
    /// Nominal input frame rate, frames per second (OpenH264 `fMaxFrameRate`).
    public var frameRate: Double
    /// The profile written in the SPS.
    public var profile: EncoderProfile
    /// The level written in the SPS and checked against Table A-1.
    public var level: H264Level
    /// CBR target in bits per second (OpenH264 `iTargetBitrate` / `iSpatialBitrate`).
    public var targetBitrate: Int
    /// Hard ceiling in bits per second (OpenH264 `iMaxBitrate` / `iMaxSpatialBitrate`); nil means
    /// `defaultMaxBitrateRatio` x target, clamped to the level's MaxBR.
    public var maxBitrate: Int?
    /// An IDR at least every this many frames.
    public var keyframeInterval: Int
    /// An IDR at least this often, measured on the frames' own timestamps.
    public var keyframeIntervalDuration: Duration
    /// Encoder threads (OpenH264 `iMultipleThreadIdc`; 1 = single-threaded). Above 1, each frame is cut into as many
    /// slices (unless `maxNALUnitSize` sizes them), which the threads encode in parallel.
    public var threads: Int
    /// When set, every NAL unit is kept within this many bytes (OpenH264 size-limited slices), for RTP
    /// packetization-mode 0 where each NAL must fit one packet (RFC 6184 section 6.2). Nil: one slice per picture.
    public var maxNALUnitSize: Int?
    /// Whether OpenH264's rate control may skip frames to hold the bitrate (`bEnableFrameSkip`); skipped frames are
    /// reported as `EncodeResult.skipped`. See Docs/Encoder.md for the measurements behind the default.
    public var frameSkipping: Bool
    /// The QP window rate control may use (OpenH264 `iMinQp`, `iMaxQp`), within `supportedQPRange`. Set explicitly:
    /// left at 0, OpenH264 silently replaces it with 12...42. See Docs/Encoder.md for the measurements behind the
    /// default.
    public var qpRange: ClosedRange<Int>
    /// Whether OpenH264's camera denoiser filters each picture before it is encoded (`bEnableDenoise`): the bits rate
    /// control would spend on sensor (or synthetic) noise go to the picture. On by default: measured +0.2-2.2 dB of
    /// delivered PSNR-Y (against the unfiltered source) at every benchmark rung and content and fewer skipped frames,
    /// for about 2.2 ms more per 1280x720 frame (Docs/Encoder.md); turn it off where that CPU matters more.
    public var denoise: Bool
    /// Temporal layers (OpenH264 `iTemporalLayerNum`, as libwebrtc's `H264EncoderImpl` sets it): 1 (L1T1, the
    /// default), 2 (L1T2: layers 0, 1, 0, 1, ...) or 3 (L1T3: 0, 2, 1, 2, ...). A frame of a layer is predicted only
    /// from frames of its own or lower layers, so a forwarder may drop every frame above a layer and the rest still
    /// decodes; each `EncodedFrame` carries its `temporalLayer`. The stream stays plain AVC (no prefix NAL units).
    public var temporalLayers: Int
    /// The lower simulcast layers' cheaper preprocessing (`SenderConfiguration.encoderConfigurations` sets it):
    /// OpenH264's background detection off and, when `denoise` is on, only the denoiser's chroma smoothing
    /// (`ChromaSmoother`) instead of OpenH264's whole denoiser, whose luma bilateral filter is most of its cost.
    /// Measured at the lower layers' sizes and rates (`run-simulcast-quality.sh`, Docs/Benchmarks.md): delivered
    /// PSNR-Y from 0.15 dB lower to 1.1 dB higher than the full preprocessing, for about 0.8 ms less CPU per 720p
    /// simulcast frame (the two lower layers together).
    public var lightPreprocessing: Bool

    /// Default ceiling as a multiple of the target.
    public static let defaultMaxBitrateRatio = 1.5
    /// Default keyframe interval in frames.
    public static let defaultKeyframeInterval = 7200
    /// Default keyframe interval in time.
    public static let defaultKeyframeIntervalDuration = Duration.seconds(240)
    /// Smallest width or height accepted (one macroblock).
    public static let minimumDimension = 16
    /// The lowest target accepted, 10 kbit/s. OpenH264 2.3.1 refuses (`cmInitParaError`, at `InitializeExt` and at a
    /// runtime change alike) a target below one bit per frame (measured: 30 bit/s at 30 fps, 60 at 60 fps); 10 kbit/s
    /// is far above that at any supported frame rate and below any useful video rate (libwebrtc's default minimum is
    /// 30 kbit/s), so every target from here to the level's MaxBR works from any starting rate.
    public static let minimumBitrate = 10_000
    /// The longest keyframe interval in time accepted: one day. Longer is certainly a mistake, and bounding it keeps
    /// the conversion to 90 kHz ticks far from `Int64`'s limit.
    public static let maximumKeyframeIntervalDuration = Duration.seconds(86_400)
    /// The largest maximum NAL unit size accepted: 65 535 bytes, the most one RTP packet over UDP can carry (and far
    /// inside the `UInt32` OpenH264 takes).
    public static let maximumMaxNALUnitSize = 65_535
    /// Frame rates accepted: OpenH264 2.3 limits the rate to 60 internally (its `MAX_FRAME_RATE`) and fails
    /// `EncodeFrame` below 1 fps (measured with 0.5), so values outside 1...60 are refused up front.
    public static let supportedFrameRates: ClosedRange<Double> = 1...60
    /// Most encoder threads accepted. OpenH264 takes any count and limits it itself; at level 3.1 sizes its
    /// slice-parallel threading gains little past 4, so larger values are refused as likely mistakes.
    public static let maximumThreads = 4
    /// Smallest maximum NAL unit size accepted for size-limited slices: OpenH264 2.3.1's `ParamValidationExt` refuses
    /// a `uiMaxNalSize` below `NAL_HEADER_ADD_0X30BYTES + MAX_MACROBLOCK_SIZE_IN_BYTE` (20 + 400 bytes: the largest
    /// macroblock plus headroom must fit one slice). Checked here so the error names the limit instead of
    /// `InitializeExt` failing.
    public static let minimumMaxNALUnitSize = 420
    /// The QP window by default (decided by measurement, Docs/Encoder.md).
    public static let defaultQPRange = 12...45
    /// QP values accepted: OpenH264 2.3.1 raises any minimum below 12 to 12 (`GOM_MIN_QP_MODE`, in
    /// `ParamValidation`), and 51 is H.264's largest QP for 8-bit video (section 7.4.2.2).
    public static let supportedQPRange = 12...51
    /// Whether frame skipping is on by default (decided by measurement, Docs/Encoder.md).
    public static let defaultFrameSkipping = true
    /// Whether the denoiser is on by default (decided by measurement, Docs/Encoder.md).
    public static let defaultDenoise = true
    /// Temporal layer counts accepted: L1T1 to L1T3, as libwebrtc offers for H.264.
    public static let supportedTemporalLayers = 1...3

    /// Creates a configuration with the package defaults (Constrained Baseline, level 3.1, ceiling 1.5 x target,
    /// IDR every 7200 frames or 240 s, single-threaded, one slice per picture).
    /// - Parameters:
    ///   - width: picture width.
    ///   - height: picture height.
    ///   - frameRate: frames per second.
    ///   - targetBitrate: bits per second.
    public init(width: Int, height: Int, frameRate: Double = 30, targetBitrate: Int = 1_500_000) {
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.profile = .constrainedBaseline
        self.level = .level3_1
        self.targetBitrate = targetBitrate
        self.maxBitrate = nil
        self.keyframeInterval = EncoderConfiguration.defaultKeyframeInterval
        self.keyframeIntervalDuration = EncoderConfiguration.defaultKeyframeIntervalDuration
        self.threads = 1
        self.maxNALUnitSize = nil
        self.frameSkipping = EncoderConfiguration.defaultFrameSkipping
        self.qpRange = EncoderConfiguration.defaultQPRange
        self.denoise = EncoderConfiguration.defaultDenoise
        self.temporalLayers = 1
        self.lightPreprocessing = false
    }

    /// The ceiling actually used: `maxBitrate`, or 1.5 x target (rounded half up) clamped to the level's MaxBR,
    /// never below the target. Integer arithmetic only, and the target is compared with the level's limit before it
    /// is scaled, so no target (`Int.max` included) can overflow.
    public var effectiveMaxBitrate: Int {
        if let maxBitrate { return maxBitrate }
        let levelLimit = level.maxBitrate(for: profile)
        // At or above the limit (or not positive) the clamp gives the target itself: nothing to scale.
        guard targetBitrate > 0, targetBitrate < levelLimit else { return targetBitrate }
        let (scaled, overflow) = targetBitrate.addingReportingOverflow((targetBitrate + 1) / 2)
        return overflow ? levelLimit : min(scaled, levelLimit)
    }

    /// Width in macroblocks (16x16 luma samples), rounded up; never overflows (`Int.max` gives `Int.max / 16 + 1`).
    public var widthInMacroblocks: Int { EncoderConfiguration.macroblocks(width) }
    /// Height in macroblocks, rounded up; never overflows.
    public var heightInMacroblocks: Int { EncoderConfiguration.macroblocks(height) }

    /// Macroblocks (16 samples) covering `samples`, rounded up, without the overflow of `(samples + 15) / 16`.
    static func macroblocks(_ samples: Int) -> Int {
        samples / 16 + (samples % 16 > 0 ? 1 : 0)
    }
}
