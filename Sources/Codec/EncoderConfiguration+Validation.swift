extension EncoderConfiguration {
    /// Checks every field and the level limits of H.264 Table A-1, reporting the first violation.
    /// - Throws: `EncoderConfigurationError` naming the field and the limit.
    public func validate() throws(EncoderConfigurationError) {
        guard width >= EncoderConfiguration.minimumDimension, height >= EncoderConfiguration.minimumDimension else {
            throw .sizeTooSmall(width: width, height: height, minimum: EncoderConfiguration.minimumDimension)
        }
        guard width % 2 == 0, height % 2 == 0 else { throw .oddSize(width: width, height: height) }
        try EncoderConfiguration.validate(frameRate: frameRate)
        let macroblocks = widthInMacroblocks * heightInMacroblocks
        guard macroblocks <= level.maxFrameSizeMacroblocks else {
            throw .frameSizeExceedsLevel(macroblocks: macroblocks, maxFrameSize: level.maxFrameSizeMacroblocks,
                                         level: level)
        }
        // A.3.1 f/g: PicWidthInMbs and FrameHeightInMbs <= Sqrt(MaxFS * 8).
        let dimensionLimit = Int(Double(level.maxFrameSizeMacroblocks * 8).squareRoot())
        for dimension in [widthInMacroblocks, heightInMacroblocks] where dimension > dimensionLimit {
            throw .dimensionExceedsLevel(macroblocks: dimension, limit: dimensionLimit, level: level)
        }
        try validate(frameRate: frameRate, macroblocks: macroblocks)
        try validate(targetBitrate: targetBitrate, maxBitrate: effectiveMaxBitrate)
        guard keyframeInterval > 0 else { throw .keyframeIntervalNotPositive(keyframeInterval) }
        guard keyframeIntervalDuration > .zero else { throw .keyframeDurationNotPositive(keyframeIntervalDuration) }
        guard (1...EncoderConfiguration.maximumThreads).contains(threads) else {
            throw .threadCountOutOfRange(threads, maximum: EncoderConfiguration.maximumThreads)
        }
        if let maxNALUnitSize, maxNALUnitSize < EncoderConfiguration.minimumMaxNALUnitSize {
            throw .maxNALUnitSizeTooSmall(maxNALUnitSize, minimum: EncoderConfiguration.minimumMaxNALUnitSize)
        }
    }

    /// Checks a target and a ceiling: both positive, ceiling >= target, both within the level's MaxBR.
    /// - Parameters:
    ///   - targetBitrate: bits per second.
    ///   - maxBitrate: bits per second.
    /// - Throws: `EncoderConfigurationError`.
    func validate(targetBitrate: Int, maxBitrate: Int) throws(EncoderConfigurationError) {
        guard targetBitrate > 0 else { throw .bitrateNotPositive(targetBitrate) }
        guard maxBitrate > 0 else { throw .bitrateNotPositive(maxBitrate) }
        guard maxBitrate >= targetBitrate else { throw .maxBitrateBelowTarget(target: targetBitrate, maxBitrate: maxBitrate) }
        let limit = level.maxBitrate(for: profile)
        for rate in [targetBitrate, maxBitrate] where rate > limit {
            throw .bitrateExceedsLevel(bitrate: rate, maxBitrate: limit, level: level, profile: profile)
        }
    }

    /// Checks a frame rate against OpenH264's range and the level's MaxMBPS.
    /// - Parameters:
    ///   - frameRate: frames per second.
    ///   - macroblocks: macroblocks per frame.
    /// - Throws: `EncoderConfigurationError`.
    func validate(frameRate: Double, macroblocks: Int) throws(EncoderConfigurationError) {
        try EncoderConfiguration.validate(frameRate: frameRate)
        let rate = Double(macroblocks) * frameRate
        guard rate <= Double(level.maxMacroblocksPerSecond) else {
            throw .macroblockRateExceedsLevel(macroblocksPerSecond: rate,
                                              maxMacroblocksPerSecond: level.maxMacroblocksPerSecond, level: level)
        }
    }

    static func validate(frameRate: Double) throws(EncoderConfigurationError) {
        guard frameRate.isFinite, supportedFrameRates.contains(frameRate) else {
            throw .frameRateOutOfRange(frameRate, supported: supportedFrameRates)
        }
    }
}
