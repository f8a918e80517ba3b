/// A deterministic moving test picture, the default video source: colour bars scrolling sideways, a band of
/// low-amplitude noise that changes every frame (so the encoder always has work to do and rate control is exercised),
/// a box bouncing across the picture and the frame number burnt in with a 5x7 digit font.
///
/// Frame `n` is always the same picture. Rendering reuses the caller's buffer and a precomputed background, so a
/// 1280x720 frame costs a few row copies and small fills, well under a millisecond in release builds.
public struct TestPattern: Sendable {
    /// Picture width.
    public let width: Int
    /// Picture height.
    public let height: Int
    /// The unscrolled background, twice as wide as the picture so that any scroll offset is one row copy.
    private var background: I420Frame

    /// 75% colour bars in BT.601 video range (Y, U, V): white, yellow, cyan, green, magenta, red, blue.
    static let bars: [(UInt8, UInt8, UInt8)] = [
        (180, 128, 128), (162, 44, 142), (131, 156, 44), (112, 72, 58), (84, 184, 198), (65, 100, 212), (35, 212, 114),
    ]
    /// Horizontal scroll speed of the bars, in pixels per frame (even, to keep chroma aligned).
    static let scrollPerFrame = 4
    /// Peak deviation of the noise band from mid-grey.
    static let noiseAmplitude = 24
    /// Digits of the burnt-in counter.
    static let counterDigits = 6

    /// Creates a pattern of the given size.
    /// - Parameters:
    ///   - width: picture width (even, at least 16).
    ///   - height: picture height (even, at least 16).
    /// - Throws: `VideoError.invalidSize` for odd or too small sizes.
    public init(width: Int, height: Int) throws(VideoError) {
        guard width >= 16, height >= 16, width % 2 == 0, height % 2 == 0 else {
            throw .invalidSize(width: width, height: height)
        }
        self.width = width
        self.height = height
        background = I420Frame(width: 2 * width, height: height)
        let barWidth = max(2, (width / TestPattern.bars.count) & ~1)
        let barsHeight = barsRows
        let bgStrideY = background.strideY, bgStrideUV = background.strideUV
        background.withUnsafeMutablePlanes { y, u, v in
            for row in 0..<height {
                for column in 0..<(2 * width) {
                    let value: UInt8
                    if row < barsHeight {
                        value = TestPattern.bars[(column % width) / barWidth % TestPattern.bars.count].0
                    } else {
                        value = UInt8(16 + (column % width) * 219 / width)  // luma ramp
                    }
                    y[row * bgStrideY + column] = value
                }
            }
            for row in 0..<(height / 2) {
                for column in 0..<width {
                    let bar = TestPattern.bars[((2 * column) % width) / barWidth % TestPattern.bars.count]
                    let inBars = 2 * row < barsHeight
                    u[row * bgStrideUV + column] = inBars ? bar.1 : 128
                    v[row * bgStrideUV + column] = inBars ? bar.2 : 128
                }
            }
        }
    }

    private var barsRows: Int { (height * 2 / 3) & ~1 }
    private var noiseRows: (Int, Int) {
        let top = (height * 3 / 4) & ~1
        return (top, min(height, top + max(2, (height / 12) & ~1)))
    }

    /// Renders frame `frameIndex` into `frame`, replacing it only if its size differs.
    /// - Parameters:
    ///   - frameIndex: the frame number (any non-negative value).
    ///   - frame: the destination, reused.
    public func render(frameIndex: Int, into frame: inout I420Frame) {
        if frame.width != width || frame.height != height {
            frame = I420Frame(width: width, height: height)
        }
        let shift = (frameIndex * TestPattern.scrollPerFrame) % width
        let w = width, h = height
        let sy = frame.strideY, suv = frame.strideUV
        let bsy = background.strideY, bsuv = background.strideUV
        background.withUnsafePlanes { by, bu, bv in
            frame.withUnsafeMutablePlanes { y, u, v in
                for row in 0..<h {
                    (y + row * sy).update(from: by + row * bsy + shift, count: w)
                }
                for row in 0..<(h / 2) {
                    (u + row * suv).update(from: bu + row * bsuv + shift / 2, count: w / 2)
                    (v + row * suv).update(from: bv + row * bsuv + shift / 2, count: w / 2)
                }
                drawNoise(frameIndex: frameIndex, y: y, stride: sy)
                drawBox(frameIndex: frameIndex, y: y, u: u, v: v, strideY: sy, strideUV: suv)
                drawCounter(frameIndex: frameIndex, y: y, u: u, v: v, strideY: sy, strideUV: suv)
            }
        }
    }

    /// Renders frame `frameIndex` into a new buffer.
    /// - Parameter frameIndex: the frame number.
    /// - Returns: the picture.
    public func frame(_ frameIndex: Int) -> I420Frame {
        var frame = I420Frame(width: width, height: height)
        render(frameIndex: frameIndex, into: &frame)
        return frame
    }

    private func drawNoise(frameIndex: Int, y: UnsafeMutablePointer<UInt8>, stride: Int) {
        let (top, bottom) = noiseRows
        // xorshift32 seeded by the frame index: the same frame always has the same noise. Each step gives four
        // samples, one per byte, scaled into [128 - amplitude, 128 + amplitude] by a multiply and a shift (no
        // division): about a quarter of the cost of one step and one modulo per sample.
        var state = UInt32(truncatingIfNeeded: frameIndex &* 2_654_435_761) | 1
        let span = UInt32(2 * TestPattern.noiseAmplitude + 1)
        let low = UInt32(128 - TestPattern.noiseAmplitude)
        @inline(__always) func sample(_ byte: UInt32) -> UInt32 { low + ((byte & 0xFF) &* span) >> 8 }
        let width = self.width
        for row in top..<bottom {
            let line = UnsafeMutableRawPointer(y + row * stride)
            var column = 0
            while column < width {
                state ^= state << 13
                state ^= state >> 17
                state ^= state << 5
                let packed = sample(state) | sample(state >> 8) << 8 | sample(state >> 16) << 16 | sample(state >> 24) << 24
                if column + 4 <= width {
                    line.storeBytes(of: packed.littleEndian, toByteOffset: column, as: UInt32.self)
                } else {
                    for k in 0..<(width - column) {
                        line.storeBytes(of: UInt8(truncatingIfNeeded: packed >> (8 * UInt32(k))), toByteOffset: column + k,
                                        as: UInt8.self)
                    }
                }
                column += 4
            }
        }
    }

    private func drawBox(frameIndex: Int, y: UnsafeMutablePointer<UInt8>, u: UnsafeMutablePointer<UInt8>,
                         v: UnsafeMutablePointer<UInt8>, strideY: Int, strideUV: Int) {
        let size = max(4, (height / 6) & ~1)
        let rangeX = width - size, rangeY = height - size
        // Bounce: position along a triangle wave with periods 2 * range.
        func bounce(_ t: Int, _ range: Int) -> Int {
            guard range > 0 else { return 0 }
            let p = t % (2 * range)
            return p < range ? p : 2 * range - p
        }
        let x0 = bounce(frameIndex * 6, rangeX) & ~1
        let y0 = bounce(frameIndex * 4, rangeY) & ~1
        for row in y0..<(y0 + size) {
            (y + row * strideY + x0).update(repeating: 235, count: size)
        }
        for row in (y0 / 2)..<((y0 + size) / 2) {
            (u + row * strideUV + x0 / 2).update(repeating: UInt8(truncatingIfNeeded: 64 + frameIndex % 128), count: size / 2)
            (v + row * strideUV + x0 / 2).update(repeating: 200, count: size / 2)
        }
    }

    private func drawCounter(frameIndex: Int, y: UnsafeMutablePointer<UInt8>, u: UnsafeMutablePointer<UInt8>,
                             v: UnsafeMutablePointer<UInt8>, strideY: Int, strideUV: Int) {
        let scale = max(1, height / 120)
        let digitWidth = (DigitFont.width + 1) * scale
        let margin = 2 * scale
        let boxWidth = min(width, TestPattern.counterDigits * digitWidth + 2 * margin) & ~1
        let boxHeight = min(height, (DigitFont.height * scale + 2 * margin + 1) & ~1)
        for row in 0..<boxHeight {
            (y + row * strideY).update(repeating: I420Frame.blackLuma, count: boxWidth)
        }
        for row in 0..<(boxHeight / 2) {
            (u + row * strideUV).update(repeating: 128, count: boxWidth / 2)
            (v + row * strideUV).update(repeating: 128, count: boxWidth / 2)
        }
        var value = frameIndex
        for position in stride(from: TestPattern.counterDigits - 1, through: 0, by: -1) {
            let digit = value % 10
            value /= 10
            let left = margin + position * digitWidth
            for fontRow in 0..<DigitFont.height {
                for fontColumn in 0..<DigitFont.width where DigitFont.isSet(digit, column: fontColumn, row: fontRow) {
                    for dy in 0..<scale {
                        let rowStart = y + (margin + fontRow * scale + dy) * strideY + left + fontColumn * scale
                        guard left + (fontColumn + 1) * scale <= width else { continue }
                        rowStart.update(repeating: 235, count: scale)
                    }
                }
            }
        }
    }
}
