import H264
import Testing
import Video
@testable import Codec

/// A lower simulcast layer's light preprocessing (`EncoderConfiguration.lightPreprocessing`): OpenH264's denoiser and
/// background detection off, the denoiser's chroma smoothing done by the encoder itself.
@Suite struct LightPreprocessingTests {
    static func configuration(light: Bool, denoise: Bool) -> EncoderConfiguration {
        var c = EncoderConfiguration(width: 320, height: 180, frameRate: 30, targetBitrate: 150_000)
        c.denoise = denoise
        c.lightPreprocessing = light
        return c
    }

    @Test func offByDefaultAndReachesOpenH264() throws {
        #expect(EncoderConfiguration(width: 320, height: 180).lightPreprocessing == false)
        let full = try H264Encoder(configuration: Self.configuration(light: false, denoise: true))
        #expect(full.openH264Denoise && full.openH264BackgroundDetection)
        let light = try H264Encoder(configuration: Self.configuration(light: true, denoise: true))
        #expect(!light.openH264Denoise && !light.openH264BackgroundDetection)
    }

    /// The encoder with light preprocessing gives the same bytes as an encoder without any denoising fed the pictures
    /// with their chroma smoothed beforehand: the smoothing is applied, to chroma only, and nothing else differs. With
    /// the denoiser off the pictures go unsmoothed.
    @Test func isTheChromaSmoothingBeforeAnUndenoisedEncode() throws {
        let frames = 20
        let pattern = try TestPattern(width: 320, height: 180)
        var picture = I420Frame(width: 320, height: 180)
        let light = try H264Encoder(configuration: Self.configuration(light: true, denoise: true))
        let undenoised = try H264Encoder(configuration: Self.configuration(light: true, denoise: false))
        let plain = try H264Encoder(configuration: Self.configuration(light: true, denoise: false))
        var smoother = ChromaSmoother()
        var smoothed = I420Frame(width: 320, height: 180)
        var differsFromUnsmoothed = false
        for index in 0..<frames {
            pattern.render(frameIndex: index, into: &picture)
            let timestamp = EncoderTestSupport.ticks(frame: index, fps: 30)
            // The same picture with its chroma smoothed, luma as it is.
            let strideUV = smoothed.strideUV
            picture.withView { view in
                smoother.smooth(view) { u, v, stride in
                    smoothed.withUnsafeMutablePlanes { y, su, sv in
                        y.update(from: view.y, count: view.strideY * view.height)
                        for row in 0..<view.chromaHeight {
                            (su + row * strideUV).update(from: u + row * stride, count: view.chromaWidth)
                            (sv + row * strideUV).update(from: v + row * stride, count: view.chromaWidth)
                        }
                    }
                }
            }
            let a = try light.encode(.i420(picture), timestamp: timestamp).encodedFrame
            let b = try undenoised.encode(.i420(smoothed), timestamp: timestamp).encodedFrame
            let c = try plain.encode(.i420(picture), timestamp: timestamp).encodedFrame
            let bytes = try #require(a?.bytes, "frame \(index) encoded")
            #expect(bytes == b?.bytes, "frame \(index)")
            if bytes != c?.bytes { differsFromUnsmoothed = true }
        }
        #expect(differsFromUnsmoothed)
    }
}
