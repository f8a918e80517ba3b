internal import CYUV
import Foundation

/// Peak signal-to-noise ratio between two I420 pictures of the same size, per plane and overall (the overall figure
/// weighs every sample equally: it is computed from the summed squared error of Y, U and V).
///
/// Identical planes give `Double.infinity`.
public struct PSNR: Sendable, Equatable {
    /// Luma PSNR in dB.
    public var y: Double
    /// U PSNR in dB.
    public var u: Double
    /// V PSNR in dB.
    public var v: Double
    /// PSNR over all samples of the three planes, in dB.
    public var overall: Double

    /// Peak sample value of 8-bit video.
    static let peak: Double = 255

    /// Measures `distorted` against `reference`.
    /// - Parameters:
    ///   - reference: the original picture.
    ///   - distorted: the decoded picture.
    /// - Throws: `VideoError.sizeMismatch` if the sizes differ.
    public init(reference: I420Frame, distorted: I420Frame) throws(VideoError) {
        guard reference.hasSameSize(as: distorted) else {
            throw .sizeMismatch(expectedWidth: reference.width, expectedHeight: reference.height,
                                width: distorted.width, height: distorted.height)
        }
        let w = reference.width, h = reference.height, cw = reference.chromaWidth, ch = reference.chromaHeight
        let (sseY, sseU, sseV): (UInt64, UInt64, UInt64) = reference.withUnsafePlanes { ry, ru, rv in
            distorted.withUnsafePlanes { dy, du, dv in
                (ComputeSumSquareErrorPlane(ry, Int32(reference.strideY), dy, Int32(distorted.strideY),
                                            Int32(w), Int32(h)),
                 ComputeSumSquareErrorPlane(ru, Int32(reference.strideUV), du, Int32(distorted.strideUV),
                                            Int32(cw), Int32(ch)),
                 ComputeSumSquareErrorPlane(rv, Int32(reference.strideUV), dv, Int32(distorted.strideUV),
                                            Int32(cw), Int32(ch)))
            }
        }
        y = PSNR.decibels(sse: sseY, samples: w * h)
        u = PSNR.decibels(sse: sseU, samples: cw * ch)
        v = PSNR.decibels(sse: sseV, samples: cw * ch)
        overall = PSNR.decibels(sse: sseY + sseU + sseV, samples: w * h + 2 * cw * ch)
    }

    /// Luma PSNR of `distorted` against `reference`, two borrowed pictures of the same size.
    /// - Parameters:
    ///   - reference: the original picture.
    ///   - distorted: the altered picture.
    /// - Returns: dB (`Double.infinity` for identical planes).
    /// - Throws: `VideoError.sizeMismatch` if the sizes differ.
    public static func luma(reference: I420FrameView, distorted: I420FrameView) throws(VideoError) -> Double {
        guard reference.width == distorted.width, reference.height == distorted.height else {
            throw .sizeMismatch(expectedWidth: reference.width, expectedHeight: reference.height,
                                width: distorted.width, height: distorted.height)
        }
        let sse = ComputeSumSquareErrorPlane(reference.y, Int32(reference.strideY), distorted.y,
                                             Int32(distorted.strideY), Int32(reference.width),
                                             Int32(reference.height))
        return decibels(sse: sse, samples: reference.width * reference.height)
    }

    static func decibels(sse: UInt64, samples: Int) -> Double {
        guard sse > 0 else { return .infinity }
        let mse = Double(sse) / Double(samples)
        return 10 * log10(peak * peak / mse)
    }
}
