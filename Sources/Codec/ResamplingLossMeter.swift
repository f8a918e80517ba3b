import Video

/// Measures how much of the input's detail a smaller rung keeps: the PSNR-Y of an input picture against the same
/// picture scaled down to the rung and back up to the input size, with the scaler the encoder uses (libyuv
/// `I420Scale`, box filter) and the one a receiver showing it at the input size would use. A soft source (a camera
/// out of focus, a clip upscaled from a small original) keeps nearly all of it at a smaller rung (measured on the
/// carphone clip, upscaled from 176x144: 51.6 dB at 960x540, 53.0 dB at 640x360); a sharp one does not (testsrc2:
/// 37.0 and 35.6 dB).
/// `QualityScaler` raises the floor of a rung whose next smaller rung keeps the detail
/// (`QualityScaler.Settings.detailKeptPSNR`).
///
/// Buffers are allocated at the first measurement of each rung and reused after that.
struct ResamplingLossMeter {
    /// The rungs measured (`rungs[0]` is the input size, never measured).
    let ladder: ResolutionLadder
    private var down: [FrameConverter]
    private let up: FrameConverter
    private var small: [I420Frame?]
    private var restored: I420Frame?

    /// Creates the meter for a ladder.
    /// - Parameter ladder: the encoder's ladder.
    /// - Throws: `VideoError.invalidSize` for a ladder with an empty rung (never from `ResolutionLadder`).
    init(ladder: ResolutionLadder) throws(VideoError) {
        self.ladder = ladder
        var converters: [FrameConverter] = []
        for rung in ladder.rungs { converters.append(try FrameConverter(width: rung.width, height: rung.height)) }
        down = converters
        up = try FrameConverter(width: ladder.rungs[0].width, height: ladder.rungs[0].height)
        small = Array(repeating: nil, count: ladder.count)
    }

    /// The PSNR-Y of `view` against `view` scaled to rung `index` and back.
    /// - Parameters:
    ///   - view: a picture of the input size (the ladder's top rung).
    ///   - index: a rung index from 1.
    /// - Returns: dB, or nil if `view` is not of the input size or `index` is not a smaller rung.
    /// - Throws: `VideoError` if libyuv fails.
    mutating func psnr(of view: I420FrameView, atRung index: Int) throws(VideoError) -> Double? {
        let top = ladder.rungs[0]
        guard view.width == top.width, view.height == top.height, index >= 1, index < ladder.count else { return nil }
        let rung = ladder.rungs[index]
        var scaled = small[index] ?? I420Frame(width: rung.width, height: rung.height)
        var back = restored ?? I420Frame(width: top.width, height: top.height)
        // Moved out, so that writing into them does not copy.
        small[index] = nil
        restored = nil
        try down[index].convert(view, into: &scaled)
        try scaled.withView { (smallView) throws(VideoError) in try up.convert(smallView, into: &back) }
        let result = try back.withView { (backView) throws(VideoError) in
            try PSNR.luma(reference: view, distorted: backView)
        }
        small[index] = scaled
        restored = back
        return result
    }
}
