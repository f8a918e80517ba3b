internal import COpenH264

extension H264Encoder {
    /// OpenH264 `uiIntraPeriod` 0: no periodic IDR from OpenH264; `KeyframeScheduler` forces them so that both the
    /// frame and the time rule are exact.
    static let openH264IntraPeriod: UInt32 = 0
    /// Reference frames: one, as real-time encoders use (lowest latency, smallest DPB).
    static let referenceFrames: Int32 = 1

    /// Maps a validated configuration onto OpenH264's `SEncParamExt`, over the values `GetDefaultParams` put in `p`
    /// (as WebRTC's `H264EncoderImpl` starts from the defaults and overrides what matters).
    /// - Parameters:
    ///   - configuration: a validated configuration.
    ///   - p: OpenH264's defaults on entry, the parameters to initialise with on return.
    static func apply(_ configuration: EncoderConfiguration, to p: inout SEncParamExt) {
        let maxBitrate = configuration.effectiveMaxBitrate
        p.iUsageType = CAMERA_VIDEO_REAL_TIME
        p.iPicWidth = Int32(configuration.width)
        p.iPicHeight = Int32(configuration.height)
        p.iTargetBitrate = Int32(configuration.targetBitrate)
        p.iMaxBitrate = Int32(maxBitrate)
        p.iRCMode = RC_BITRATE_MODE
        p.fMaxFrameRate = Float(configuration.frameRate)
        p.bEnableFrameSkip = configuration.frameSkipping
        // Explicit: with iMinQp 0 OpenH264 would replace the window with 12...42 (ParamValidation).
        p.iMinQp = Int32(configuration.qpRange.lowerBound)
        p.iMaxQp = Int32(configuration.qpRange.upperBound)
        p.iTemporalLayerNum = Int32(configuration.temporalLayers)
        p.iSpatialLayerNum = 1
        p.uiIntraPeriod = openH264IntraPeriod
        // With N temporal layers the last frame of each of the N - 1 referenced layers must stay available
        // (libwebrtc's H264EncoderImpl allocates N - 1 reference buffers for the same reason).
        p.iNumRefFrame = max(referenceFrames, Int32(configuration.temporalLayers - 1))
        p.eSpsPpsIdStrategy = CONSTANT_ID
        p.bPrefixNalAddingCtrl = false
        p.bEnableSSEI = false
        p.bSimulcastAVC = false
        p.iPaddingFlag = 0
        p.iEntropyCodingModeFlag = configuration.profile.entropyCodingModeFlag
        p.iMultipleThreadIdc = UInt16(configuration.threads)
        p.bEnableLongTermReference = false
        // OpenH264's camera denoiser (a pre-filter, as libwebrtc runs its VP8 denoiser on camera video), on by
        // default: the bits rate control spent on sensor and synthetic noise go to the picture; measured
        // (Docs/Encoder.md) +0.2-2.2 dB of delivered PSNR-Y against the unfiltered source at every rung of every
        // benchmark content, and fewer skipped frames, for about 2.2 ms more per 720p frame on the encoder's thread.
        p.bEnableDenoise = configuration.denoise
        // Scene-change IDRs would break the exact keyframe schedule; the caller requests IDRs when it needs them.
        p.bEnableSceneChangeDetect = false
        // On (OpenH264's default, and libwebrtc's): with it off, delivered PSNR-Y was 0.07-0.46 dB higher on testsrc2
        // and mandelbrot, but rate control skipped frames it did not skip before (one in the first 90 frames of a
        // 640x360 High stream at 1.5 Mbit/s); a skipped frame is a freeze, which counts for more (Docs/Encoder.md).
        p.bEnableBackgroundDetection = true
        p.bEnableAdaptiveQuant = true
        if configuration.lightPreprocessing {
            // A lower simulcast layer: the chroma half of the denoiser runs outside OpenH264 (`H264Encoder`'s
            // `ChromaSmoother`), and background detection is off (delivered PSNR-Y no lower without it at these
            // layers' sizes and rates, and less CPU; Docs/Benchmarks.md).
            p.bEnableDenoise = false
            p.bEnableBackgroundDetection = false
        }
        p.iLoopFilterDisableIdc = 0

        var layer = p.sSpatialLayers.0
        layer.iVideoWidth = Int32(configuration.width)
        layer.iVideoHeight = Int32(configuration.height)
        layer.fFrameRate = Float(configuration.frameRate)
        layer.iSpatialBitrate = Int32(configuration.targetBitrate)
        layer.iMaxSpatialBitrate = Int32(maxBitrate)
        layer.uiProfileIdc = EProfileIdc(rawValue: UInt32(configuration.profile.profileIdc))
        layer.uiLevelIdc = ELevelIdc(rawValue: UInt32(configuration.level.levelIdc))
        if let maxNAL = configuration.maxNALUnitSize {
            layer.sSliceArgument.uiSliceMode = SM_SIZELIMITED_SLICE
            layer.sSliceArgument.uiSliceSizeConstraint = UInt32(maxNAL)
            p.uiMaxNalSize = UInt32(maxNAL)
        } else if configuration.threads > 1 {
            // One slice per thread (libwebrtc's SM_FIXEDSLCNUM_SLICE for packetization mode 1): OpenH264 encodes
            // slices in parallel and nothing else; with a single slice its threads would have nothing to share.
            layer.sSliceArgument.uiSliceMode = SM_FIXEDSLCNUM_SLICE
            layer.sSliceArgument.uiSliceNum = UInt32(configuration.threads)
            p.uiMaxNalSize = 0
        } else {
            layer.sSliceArgument.uiSliceMode = SM_SINGLE_SLICE
            layer.sSliceArgument.uiSliceNum = 1
            p.uiMaxNalSize = 0
        }
        p.sSpatialLayers.0 = layer
    }
}
