import TestSupport
import Testing
@testable import Video

/// The lower simulcast layers' chroma smoothing: OpenH264's denoiser's 5x5 chroma average, rows smoothed top to bottom
/// from the rows above as already smoothed, the two outermost rows and columns kept.
@Suite struct ChromaSmootherTests {
    /// The smoothing written the plain way, for comparison: in place on a copy of the plane, one sample at a time, each
    /// row computed from the plane as it stands (the rows above it already smoothed) before the row is written back.
    static func reference(_ plane: [UInt8], width: Int, height: Int, stride: Int) -> [UInt8] {
        var rows = (0..<height).map { Array(plane[($0 * stride)..<($0 * stride + width)]) }
        guard width >= 5, height >= 5 else { return rows.flatMap { $0 } }
        for y in 2..<(height - 2) {
            var row = rows[y]
            for x in 2..<(width - 2) {
                var sum: UInt32 = 0
                for dy in 0..<5 {
                    for dx in 0..<5 { sum += ChromaSmoother.weights[dy][dx] * UInt32(rows[y + dy - 2][x + dx - 2]) }
                }
                row[x] = UInt8(sum / 64)
            }
            rows[y] = row
        }
        return rows.flatMap { $0 }
    }

    /// A picture of random samples with padded rows.
    static func picture(width: Int, height: Int, padding: Int, seed: UInt64) -> I420Frame {
        var generator = SplitMix64(seed: seed)
        var frame = I420Frame(width: width, height: height, strideY: width + 2 * padding, strideUV: (width + 1) / 2 + padding)
        let lumaCount = frame.strideY * height, chromaCount = frame.strideUV * frame.chromaHeight
        frame.withUnsafeMutablePlanes { y, u, v in
            for i in 0..<lumaCount { y[i] = UInt8(truncatingIfNeeded: generator.next()) }
            for i in 0..<chromaCount {
                u[i] = UInt8(truncatingIfNeeded: generator.next())
                v[i] = UInt8(truncatingIfNeeded: generator.next())
            }
        }
        return frame
    }

    @Test func theWeightsAreOpenH264sAndSumTo64() {
        #expect(ChromaSmoother.weights.joined().reduce(0, +) == 64)
        #expect(ChromaSmoother.weights[2] == [2, 4, 20, 4, 2])
        #expect(ChromaSmoother.weights == ChromaSmoother.weights.reversed())  // symmetric top to bottom
    }

    /// Byte for byte the plain smoothing, for sizes with and without an interior, odd sizes and padded strides.
    static let sizes: [(Int, Int, Int)] = [
        (640, 360, 0), (640, 360, 16), (37, 23, 3), (10, 10, 0), (9, 9, 1), (8, 8, 0), (2, 2, 0), (1280, 720, 32),
    ]

    @Test(arguments: sizes)
    func matchesThePlainSmoothing(width: Int, height: Int, padding: Int) {
        let frame = Self.picture(width: width, height: height, padding: padding, seed: UInt64(width * 1000 + height))
        var smoother = ChromaSmoother()
        let (u, v) = frame.withView { view in
            smoother.smooth(view) { u, v, stride in
                #expect(stride == view.chromaWidth)
                let count = view.chromaWidth * view.chromaHeight
                return (Array(UnsafeBufferPointer(start: u, count: count)), Array(UnsafeBufferPointer(start: v, count: count)))
            }
        }
        let planes = frame.withUnsafePlanes { _, u, v in
            (Array(UnsafeBufferPointer(start: u, count: frame.strideUV * frame.chromaHeight)),
             Array(UnsafeBufferPointer(start: v, count: frame.strideUV * frame.chromaHeight)))
        }
        let expectedU = Self.reference(planes.0, width: frame.chromaWidth, height: frame.chromaHeight, stride: frame.strideUV)
        let expectedV = Self.reference(planes.1, width: frame.chromaWidth, height: frame.chromaHeight, stride: frame.strideUV)
        #expect(u == expectedU)
        #expect(v == expectedV)
        // Random samples change where there is an interior, and only there.
        let original = (0..<frame.chromaHeight).flatMap {
            planes.0[($0 * frame.strideUV)..<($0 * frame.strideUV + frame.chromaWidth)]
        }
        #expect((u != original) == (frame.chromaWidth >= 5 && frame.chromaHeight >= 5))
    }

    /// One bright sample: the first row it reaches (two above it) gets the window's bottom row of weights
    /// (1 1 2 1 1) x 64 / 64; samples outside the window and the edges stay; a flat plane stays flat.
    @Test func anImpulseSpreadsWithTheWindowsWeights() {
        var frame = I420Frame(width: 18, height: 18)  // chroma 9x9
        frame.withUnsafeMutablePlanes { y, u, v in
            for i in 0..<(18 * 18) { y[i] = 77 }
            for i in 0..<81 {
                u[i] = 0
                v[i] = 128
            }
            u[4 * 9 + 4] = 64
        }
        var smoother = ChromaSmoother()
        frame.withView { view in
            smoother.smooth(view) { u, v, stride in
                #expect(stride == 9)
                #expect((0..<9).map { u[2 * 9 + $0] } == [0, 0, 1, 1, 2, 1, 1, 0, 0])
                #expect((0..<9).map { u[0 * 9 + $0] }.allSatisfy { $0 == 0 })
                #expect(u[4 * 9 + 4] < 64 && u[4 * 9 + 4] >= 20)  // the centre keeps 20/64 of itself, plus its neighbours' share
                #expect((0..<81).allSatisfy { v[$0] == 128 })
            }
        }
    }

    /// The smoother's planes follow the picture's size from call to call.
    @Test func followsAChangeOfSize() {
        var smoother = ChromaSmoother()
        for (width, height) in [(64, 48), (32, 16), (64, 48)] {
            let frame = Self.picture(width: width, height: height, padding: 2, seed: 7)
            let planes = frame.withUnsafePlanes { _, u, _ in Array(UnsafeBufferPointer(start: u, count: frame.strideUV * frame.chromaHeight)) }
            let smoothed = frame.withView { view in
                smoother.smooth(view) { u, _, stride in Array(UnsafeBufferPointer(start: u, count: stride * view.chromaHeight)) }
            }
            #expect(smoothed == Self.reference(planes, width: frame.chromaWidth, height: frame.chromaHeight, stride: frame.strideUV))
        }
    }
}
