/// The picture sizes the encoder may use for one input size, largest first: the input size, then 3/4, 1/2, 3/8 and
/// 1/4 of it (for 1280x720: 960x540, 640x360, 480x270, 320x180), the steps libwebrtc's `VideoAdapter` alternates
/// between (x3/4, x2/3). Each rung keeps the input's aspect ratio, has even dimensions (4:2:0) and is at least
/// `EncoderConfiguration.minimumDimension` in both; sizes that are not multiples of 16 are coded with the SPS
/// cropping rectangle, as OpenH264 does for any size.
///
/// Pure value: no I/O, no clock.
public struct ResolutionLadder: Sendable, Equatable {
    /// The rungs, largest first; `rungs[0]` is the input size.
    public let rungs: [ResolutionRung]

    /// The scale factors of the rungs relative to the input, as (numerator, denominator).
    public static let scaleFactors: [(Int, Int)] = [(1, 1), (3, 4), (1, 2), (3, 8), (1, 4)]

    /// Builds the ladder for an input size.
    /// - Parameters:
    ///   - width: input width (even, at least 16; `EncoderConfiguration.validate()` checks it).
    ///   - height: input height (even, at least 16).
    public init(width: Int, height: Int) {
        var rungs: [ResolutionRung] = [ResolutionRung(width: width, height: height)]
        for (numerator, denominator) in Self.scaleFactors.dropFirst() {
            let w = Self.evenScaled(width, numerator, denominator)
            let h = Self.evenScaled(height, numerator, denominator)
            guard w >= EncoderConfiguration.minimumDimension, h >= EncoderConfiguration.minimumDimension else { break }
            let rung = ResolutionRung(width: w, height: h)
            if rung != rungs.last { rungs.append(rung) }
        }
        self.rungs = rungs
    }

    /// `value * numerator / denominator` rounded to the nearest even number (for the factors of `scaleFactors`).
    /// A made-up size too large for the arithmetic is returned unscaled rather than trapping.
    static func evenScaled(_ value: Int, _ numerator: Int, _ denominator: Int) -> Int {
        let (product, overflow) = value.multipliedReportingOverflow(by: numerator)
        let (rounded, roundingOverflow) = product.addingReportingOverflow(denominator)
        guard !overflow, !roundingOverflow, denominator > 0 else { return value }
        // Nearest multiple of 2 of product / denominator: round(product / (2 * denominator)) * 2.
        return rounded / (2 * denominator) * 2
    }

    /// The number of rungs.
    public var count: Int { rungs.count }

    /// The index of the smallest rung at least `height` pixels high (the last rung if none is that small).
    /// - Parameter height: pixels.
    public func lowestIndex(notBelowHeight height: Int) -> Int {
        rungs.lastIndex { $0.height >= height } ?? 0
    }
}
