internal import COpenH264

extension H264Encoder {
    /// Changes the target bitrate and the ceiling together, without re-creating the encoder
    /// (OpenH264 `ENCODER_OPTION_BITRATE` and `ENCODER_OPTION_MAX_BITRATE` on `SPATIAL_LAYER_ALL`).
    /// - Parameters:
    ///   - target: new target in bits per second.
    ///   - maxBitrate: new ceiling; nil means 1.5 x target clamped to the level's MaxBR.
    /// - Throws: `EncoderConfigurationError` for a bad value (the encoder is left unchanged), `OpenH264Error` if
    ///   OpenH264 refuses it.
    public func setBitrate(target: Int, maxBitrate: Int? = nil) throws {
        try configuration.validate(targetBitrate: target, maxBitrate: maxBitrate)
        var updated = configuration
        updated.targetBitrate = target
        updated.maxBitrate = maxBitrate
        let newMax = updated.effectiveMaxBitrate
        let api = encoder.pointee!.pointee
        var targetInfo = SBitrateInfo(iLayer: SPATIAL_LAYER_ALL, iBitrate: Int32(target))
        var maxInfo = SBitrateInfo(iLayer: SPATIAL_LAYER_ALL, iBitrate: Int32(newMax))
        // Keep target <= ceiling at every step: raise the ceiling first, or lower the target first.
        if newMax > configuration.effectiveMaxBitrate {
            try OpenH264Error.check(api.SetOption(encoder, ENCODER_OPTION_MAX_BITRATE, &maxInfo), "SetOption")
            try OpenH264Error.check(api.SetOption(encoder, ENCODER_OPTION_BITRATE, &targetInfo), "SetOption")
        } else {
            try OpenH264Error.check(api.SetOption(encoder, ENCODER_OPTION_BITRATE, &targetInfo), "SetOption")
            try OpenH264Error.check(api.SetOption(encoder, ENCODER_OPTION_MAX_BITRATE, &maxInfo), "SetOption")
        }
        configuration = updated
    }

    /// Changes the nominal frame rate without re-creating the encoder (OpenH264 `ENCODER_OPTION_FRAME_RATE`).
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
