extension EncoderConfiguration {
    /// Checks every field and the level limits of H.264 Table A-1, reporting the first violation.
    ///
    /// Every check compares before it converts or multiplies: sizes are checked per dimension before the frame area
    /// is computed, the frame rate is checked for NaN and infinity before it is multiplied, and the target is checked
    /// against the level before the 1.5x ceiling is derived from it. No field value can trap.
    /// - Throws: `EncoderConfigurationError` naming the field and the limit.
    public func validate() throws(EncoderConfigurationError) {
        guard width >= EncoderConfiguration.minimumDimension, height >= EncoderConfiguration.minimumDimension else {
            throw .sizeTooSmall(width: width, height: height, minimum: EncoderConfiguration.minimumDimension)
        }
        guard width % 2 == 0, height % 2 == 0 else { throw .oddSize(width: width, height: height) }
        try EncoderConfiguration.validate(frameRate: frameRate)
        // A.3.1 f/g: PicWidthInMbs and FrameHeightInMbs <= Sqrt(MaxFS * 8); checked first so that the area below is
        // the product of two bounded numbers.
        let dimensionLimit = level.maxDimensionMacroblocks
        for dimension in [widthInMacroblocks, heightInMacroblocks] where dimension > dimensionLimit {
            throw .dimensionExceedsLevel(macroblocks: dimension, limit: dimensionLimit, level: level)
        }
        let (macroblocks, overflow) = widthInMacroblocks.multipliedReportingOverflow(by: heightInMacroblocks)
        guard !overflow, macroblocks <= level.maxFrameSizeMacroblocks else {
            throw .frameSizeExceedsLevel(macroblocks: overflow ? .max : macroblocks,
                                         maxFrameSize: level.maxFrameSizeMacroblocks, level: level)
        }
        try validate(frameRate: frameRate, macroblocks: macroblocks)
        try validate(targetBitrate: targetBitrate, maxBitrate: maxBitrate)
        guard keyframeInterval > 0 else { throw .keyframeIntervalNotPositive(keyframeInterval) }
        guard keyframeIntervalDuration > .zero else { throw .keyframeDurationNotPositive(keyframeIntervalDuration) }
        guard keyframeIntervalDuration <= EncoderConfiguration.maximumKeyframeIntervalDuration else {
            throw .keyframeDurationTooLong(keyframeIntervalDuration,
                                           maximum: EncoderConfiguration.maximumKeyframeIntervalDuration)
        }
        guard (1...EncoderConfiguration.maximumThreads).contains(threads) else {
            throw .threadCountOutOfRange(threads, maximum: EncoderConfiguration.maximumThreads)
        }
        guard EncoderConfiguration.supportedQPRange.contains(qpRange.lowerBound),
              EncoderConfiguration.supportedQPRange.contains(qpRange.upperBound) else {
            throw .qpRangeOutOfBounds(qpRange, supported: EncoderConfiguration.supportedQPRange)
        }
        guard EncoderConfiguration.supportedTemporalLayers.contains(temporalLayers) else {
            throw .temporalLayersOutOfRange(temporalLayers, supported: EncoderConfiguration.supportedTemporalLayers)
        }
        if let maxNALUnitSize {
            guard maxNALUnitSize >= EncoderConfiguration.minimumMaxNALUnitSize else {
                throw .maxNALUnitSizeTooSmall(maxNALUnitSize, minimum: EncoderConfiguration.minimumMaxNALUnitSize)
            }
            guard maxNALUnitSize <= EncoderConfiguration.maximumMaxNALUnitSize else {
                throw .maxNALUnitSizeTooLarge(maxNALUnitSize, maximum: EncoderConfiguration.maximumMaxNALUnitSize)
            }
        }
    }

    /// Checks a target and an optional explicit ceiling: the target positive, at least `minimumBitrate` and within the level's MaxBR (checked
    /// before the default ceiling is derived from it), then the ceiling (explicit, or 1.5x the target clamped to the
    /// level) positive, at least the target and within MaxBR.
    /// - Parameters:
    ///   - targetBitrate: bits per second.
    ///   - maxBitrate: bits per second, or nil for the default ceiling.
    /// - Throws: `EncoderConfigurationError`.
    func validate(targetBitrate: Int, maxBitrate: Int?) throws(EncoderConfigurationError) {
        let limit = level.maxBitrate(for: profile)
        guard targetBitrate > 0 else { throw .bitrateNotPositive(targetBitrate) }
        guard targetBitrate >= EncoderConfiguration.minimumBitrate else {
            throw .bitrateBelowMinimum(targetBitrate, minimum: EncoderConfiguration.minimumBitrate)
        }
        guard targetBitrate <= limit else {
            throw .bitrateExceedsLevel(bitrate: targetBitrate, maxBitrate: limit, level: level, profile: profile)
        }
        var candidate = self
        candidate.targetBitrate = targetBitrate
        candidate.maxBitrate = maxBitrate
        let ceiling = candidate.effectiveMaxBitrate
        guard ceiling > 0 else { throw .bitrateNotPositive(ceiling) }
        guard ceiling >= targetBitrate else { throw .maxBitrateBelowTarget(target: targetBitrate, maxBitrate: ceiling) }
        guard ceiling <= limit else {
            throw .bitrateExceedsLevel(bitrate: ceiling, maxBitrate: limit, level: level, profile: profile)
        }
    }

    /// Checks a frame rate against OpenH264's range and the level's MaxMBPS.
    /// - Parameters:
    ///   - frameRate: frames per second.
    ///   - macroblocks: macroblocks per frame (at most the level's MaxFS).
    /// - Throws: `EncoderConfigurationError`.
    func validate(frameRate: Double, macroblocks: Int) throws(EncoderConfigurationError) {
        try EncoderConfiguration.validate(frameRate: frameRate)
        // Both factors are bounded here (1...60 and MaxFS), so the product is finite.
        let rate = Double(macroblocks) * frameRate
        guard rate <= Double(level.maxMacroblocksPerSecond) else {
            throw .macroblockRateExceedsLevel(macroblocksPerSecond: rate,
                                              maxMacroblocksPerSecond: level.maxMacroblocksPerSecond, level: level)
        }
    }

    /// Checks a frame rate against OpenH264's range: finite and within `supportedFrameRates` (NaN and infinities are
    /// refused here, before any arithmetic uses them).
    /// - Parameter frameRate: frames per second.
    /// - Throws: `EncoderConfigurationError.frameRateOutOfRange`.
    public static func validate(frameRate: Double) throws(EncoderConfigurationError) {
        guard frameRate.isFinite, supportedFrameRates.contains(frameRate) else {
            throw .frameRateOutOfRange(frameRate, supported: supportedFrameRates)
        }
    }
}
