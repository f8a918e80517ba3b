/// Smooths the two chroma planes of I420 pictures with the 5x5 weighted average OpenH264's camera denoiser applies to
/// chroma (its `WaverageDenoiseChroma`: weights 1 1 2 1 1 / 1 2 4 2 1 / 2 4 20 4 2 / 1 2 4 2 1 / 1 1 2 1 1, summing to
/// 64), without the denoiser's luma bilateral filter, which is most of its cost. Used for the lower simulcast layers
/// (`EncoderConfiguration.lightPreprocessing`): at their sizes and rates most of what the whole denoiser gains comes
/// from the chroma it flattens (fewer bits spent on chroma leave more for luma), measured in Docs/Benchmarks.md.
///
/// Rows are smoothed top to bottom, each from the two rows above it as already smoothed and itself and the two below
/// as given (as the denoiser, which works in place, reads them); the two outermost rows and columns are copied
/// unchanged, and a plane narrower or shorter than 5 samples is copied whole. The result goes to the smoother's own
/// planes (the picture is only read), reused from call to call: nothing is allocated per picture once the size is
/// known.
package struct ChromaSmoother {
    /// The smoothed Cb and Cr planes, `chromaWidth` bytes a row, no padding.
    private var u: [UInt8] = []
    private var v: [UInt8] = []
    private var chromaWidth = 0
    private var chromaHeight = 0

    /// The weights of one row of the window, for rows 0 and 4, 1 and 3, and 2 (the centre).
    package static let weights: [[UInt32]] = [
        [1, 1, 2, 1, 1], [1, 2, 4, 2, 1], [2, 4, 20, 4, 2], [1, 2, 4, 2, 1], [1, 1, 2, 1, 1],
    ]

    /// Creates a smoother (its planes are sized on first use).
    package init() {}

    /// Smooths the chroma of `view` and lends the result.
    /// - Parameters:
    ///   - view: the picture (only its chroma planes are read).
    ///   - body: receives the smoothed Cb and Cr planes and their stride (the chroma width), valid only during the
    ///     call.
    /// - Returns: what `body` returns.
    package mutating func smooth<R>(
        _ view: I420FrameView, _ body: (UnsafePointer<UInt8>, UnsafePointer<UInt8>, Int) throws -> R
    ) rethrows -> R {
        let width = view.chromaWidth, height = view.chromaHeight
        if width != chromaWidth || height != chromaHeight {
            chromaWidth = width
            chromaHeight = height
            u = [UInt8](repeating: 0, count: width * height)
            v = [UInt8](repeating: 0, count: width * height)
        }
        let stride = view.strideUV
        u.withUnsafeMutableBufferPointer {
            Self.smoothPlane(view.u, stride: stride, width: width, height: height, into: $0.baseAddress!)
        }
        v.withUnsafeMutableBufferPointer {
            Self.smoothPlane(view.v, stride: stride, width: width, height: height, into: $0.baseAddress!)
        }
        return try u.withUnsafeBufferPointer { u in
            try v.withUnsafeBufferPointer { v in try body(u.baseAddress!, v.baseAddress!, width) }
        }
    }

    /// Smooths one plane of `width` x `height` samples (`stride` bytes a row) into `output` (`width` bytes a row).
    private static func smoothPlane(
        _ source: UnsafePointer<UInt8>, stride: Int, width: Int, height: Int, into output: UnsafeMutablePointer<UInt8>
    ) {
        guard width >= 5, height >= 5 else {
            for row in 0..<height { (output + row * width).update(from: source + row * stride, count: width) }
            return
        }
        for row in 0..<2 { (output + row * width).update(from: source + row * stride, count: width) }
        for row in 2..<(height - 2) {
            let line = output + row * width
            let given = source + row * stride
            line[0] = given[0]
            line[1] = given[1]
            line[width - 2] = given[width - 2]
            line[width - 1] = given[width - 1]
            smoothRow(above2: UnsafePointer(line - 2 * width), above1: UnsafePointer(line - width), centre: given,
                      below1: given + stride, below2: given + 2 * stride, count: width - 4, into: line + 2)
        }
        for row in (height - 2)..<height { (output + row * width).update(from: source + row * stride, count: width) }
    }

    /// One row's interior: `count` samples from column 2 on, each the weighted sum of the 5x5 window around it over 64
    /// (rounded down). Plain integer arithmetic on pointers, which the compiler vectorises, but only out of line:
    /// inlined into `smoothPlane` (where the rows above are the output's own) it did not, and cost 0.44 ms per 640x360
    /// picture instead of 0.08 ms (measured).
    @inline(never)
    private static func smoothRow(
        above2 a: UnsafePointer<UInt8>, above1 b: UnsafePointer<UInt8>, centre c: UnsafePointer<UInt8>,
        below1 d: UnsafePointer<UInt8>, below2 e: UnsafePointer<UInt8>, count: Int,
        into output: UnsafeMutablePointer<UInt8>
    ) {
        for i in 0..<count {
            let x = i &+ 2
            var sum = UInt32(a[x &- 2]) &+ UInt32(a[x &- 1]) &+ 2 &* UInt32(a[x]) &+ UInt32(a[x &+ 1]) &+ UInt32(a[x &+ 2])
            sum = sum &+ UInt32(b[x &- 2]) &+ 2 &* UInt32(b[x &- 1]) &+ 4 &* UInt32(b[x]) &+ 2 &* UInt32(b[x &+ 1])
                &+ UInt32(b[x &+ 2])
            sum = sum &+ 2 &* UInt32(c[x &- 2]) &+ 4 &* UInt32(c[x &- 1]) &+ 20 &* UInt32(c[x]) &+ 4 &* UInt32(c[x &+ 1])
                &+ 2 &* UInt32(c[x &+ 2])
            sum = sum &+ UInt32(d[x &- 2]) &+ 2 &* UInt32(d[x &- 1]) &+ 4 &* UInt32(d[x]) &+ 2 &* UInt32(d[x &+ 1])
                &+ UInt32(d[x &+ 2])
            sum = sum &+ UInt32(e[x &- 2]) &+ UInt32(e[x &- 1]) &+ 2 &* UInt32(e[x]) &+ UInt32(e[x &+ 1]) &+ UInt32(e[x &+ 2])
            output[i] = UInt8(truncatingIfNeeded: sum &>> 6)
        }
    }
}
