internal import COpenH264

extension H264Encoder {
    /// Changes the target bitrate and the ceiling together, without re-creating the encoder.
    ///
    /// Any target from 1 bit/s to the level's MaxBR is accepted whatever the current rate. OpenH264 2.3.1 keeps the
    /// rates twice, for the whole stream (`iTargetBitrate`, `iMaxBitrate`) and for spatial layer 0
    /// (`iSpatialBitrate`, `iMaxSpatialBitrate`), and refuses (`cmInitParaError`) any state where layer 0's target
    /// exceeds layer 0's ceiling; `ENCODER_OPTION_MAX_BITRATE` on `SPATIAL_LAYER_ALL` updates only the stream's
    /// ceiling. So both are set, through `ENCODER_OPTION_BITRATE` / `ENCODER_OPTION_MAX_BITRATE` on
    /// `SPATIAL_LAYER_ALL` and on `SPATIAL_LAYER_0`, ordered so that no intermediate state has a target above a
    /// ceiling: a ceiling that rises is raised first, one that falls is lowered last.
    ///
    /// The change is atomic: if OpenH264 refuses a step, the previous rates are put back (in the safe order again)
    /// and `configuration` is left as it was.
    /// - Parameters:
    ///   - target: new target in bits per second.
    ///   - maxBitrate: new ceiling; nil means 1.5 x target clamped to the level's MaxBR.
    /// - Throws: `EncoderConfigurationError` for a bad value (checked before OpenH264 is touched), `OpenH264Error` if
    ///   OpenH264 refuses the change (the encoder is then as before).
    public func setBitrate(target: Int, maxBitrate: Int? = nil) throws {
        try configuration.validate(targetBitrate: target, maxBitrate: maxBitrate)
        var updated = configuration
        updated.targetBitrate = target
        updated.maxBitrate = maxBitrate
        let old = (target: configuration.targetBitrate, max: configuration.effectiveMaxBitrate)
        let new = (target: target, max: updated.effectiveMaxBitrate)
        do {
            try applyRates(target: new.target, max: new.max, previousMax: old.max)
        } catch {
            // Put the previous rates back; they were valid, so this is expected to succeed.
            try? applyRates(target: old.target, max: old.max, previousMax: new.max)
            throw error
        }
        configuration = updated
    }

    /// Sets target and ceiling on the stream and on layer 0, in an order that keeps target <= ceiling throughout.
    /// Both values are validated (positive, within the level's MaxBR, so within `Int32`).
    private func applyRates(target: Int, max: Int, previousMax: Int) throws(OpenH264Error) {
        if max >= previousMax {
            try setLayerRates(ENCODER_OPTION_MAX_BITRATE, max)
            try setLayerRates(ENCODER_OPTION_BITRATE, target)
        } else {
            try setLayerRates(ENCODER_OPTION_BITRATE, target)
            try setLayerRates(ENCODER_OPTION_MAX_BITRATE, max)
        }
    }

    /// One rate option on `SPATIAL_LAYER_ALL`, then on `SPATIAL_LAYER_0` (OpenH264 spreads the stream's target over
    /// the layers with a float ratio; setting layer 0 explicitly keeps it exact).
    private func setLayerRates(_ option: ENCODER_OPTION, _ bps: Int) throws(OpenH264Error) {
        let api = encoder.pointee!.pointee
        for layer in [SPATIAL_LAYER_ALL, SPATIAL_LAYER_0] {
            var info = SBitrateInfo(iLayer: layer, iBitrate: Int32(bps))
            if let remaining = rateOptionsBeforeInjectedFailure {
                rateOptionsBeforeInjectedFailure = remaining - 1
                if remaining == 0 { throw OpenH264Error(operation: "SetOption", status: Int(cmInitParaError.rawValue)) }
            }
            try OpenH264Error.check(api.SetOption(encoder, option, &info), "SetOption")
        }
    }

    /// The rates OpenH264 holds now, read back with `GetOption` (stream target and ceiling, layer 0 target and
    /// ceiling), for tests that check a change was applied everywhere or nowhere.
    var openH264Rates: (target: Int, max: Int, layerTarget: Int, layerMax: Int) {
        let api = encoder.pointee!.pointee
        func read(_ option: ENCODER_OPTION, _ layer: LAYER_NUM) -> Int {
            var info = SBitrateInfo(iLayer: layer, iBitrate: 0)
            return api.GetOption(encoder, option, &info) == 0 ? Int(info.iBitrate) : -1
        }
        return (read(ENCODER_OPTION_BITRATE, SPATIAL_LAYER_ALL), read(ENCODER_OPTION_MAX_BITRATE, SPATIAL_LAYER_ALL),
                read(ENCODER_OPTION_BITRATE, SPATIAL_LAYER_0), read(ENCODER_OPTION_MAX_BITRATE, SPATIAL_LAYER_0))
    }

    /// The QP window OpenH264 applies (`GetOption(ENCODER_OPTION_SVC_ENCODE_PARAM_EXT)`, after its own
    /// `ParamValidation`), for tests that check it was not silently replaced.
    var openH264QPRange: ClosedRange<Int> {
        var parameters = SEncParamExt()
        _ = encoder.pointee!.pointee.GetOption(encoder, ENCODER_OPTION_SVC_ENCODE_PARAM_EXT, &parameters)
        return Int(parameters.iMinQp)...Int(max(parameters.iMinQp, parameters.iMaxQp))
    }

    /// Whether OpenH264's denoiser is on (`GetOption(ENCODER_OPTION_SVC_ENCODE_PARAM_EXT)`), for tests.
    var openH264Denoise: Bool {
        var parameters = SEncParamExt()
        _ = encoder.pointee!.pointee.GetOption(encoder, ENCODER_OPTION_SVC_ENCODE_PARAM_EXT, &parameters)
        return parameters.bEnableDenoise
    }

    /// Whether OpenH264's background detection is on (`GetOption(ENCODER_OPTION_SVC_ENCODE_PARAM_EXT)`), for tests.
    var openH264BackgroundDetection: Bool {
        var parameters = SEncParamExt()
        _ = encoder.pointee!.pointee.GetOption(encoder, ENCODER_OPTION_SVC_ENCODE_PARAM_EXT, &parameters)
        return parameters.bEnableBackgroundDetection
    }

    /// The frame rate OpenH264 holds now (`GetOption(ENCODER_OPTION_FRAME_RATE)`), for tests.
    var openH264FrameRate: Double {
        var value: Float = 0
        _ = encoder.pointee!.pointee.GetOption(encoder, ENCODER_OPTION_FRAME_RATE, &value)
        return Double(value)
    }

    /// Changes the nominal frame rate without re-creating the encoder (OpenH264 `ENCODER_OPTION_FRAME_RATE`).
    /// A refused value (NaN, infinite, outside 1...60, above the level's MaxMBPS) changes nothing.
    /// - Parameter frameRate: frames per second, within OpenH264's range and the level's MaxMBPS.
    /// - Throws: `EncoderConfigurationError` for a bad value (the encoder is left unchanged), `OpenH264Error` if
    ///   OpenH264 refuses it.
    public func setFrameRate(_ frameRate: Double) throws {
        try configuration.validate(frameRate: frameRate,
                                   macroblocks: configuration.widthInMacroblocks * configuration.heightInMacroblocks)
        var value = Float(frameRate)
        try OpenH264Error.check(encoder.pointee!.pointee.SetOption(encoder, ENCODER_OPTION_FRAME_RATE, &value),
                                "SetOption")
        configuration.frameRate = frameRate
    }
}
