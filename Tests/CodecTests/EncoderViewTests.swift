import H264
import Testing
import Video
@testable import Codec

/// `H264Encoder.encode(_: I420FrameView, ...)`: a borrowed picture (here with padded rows, as capture buffers
/// often have) encodes to exactly the bytes of the same picture passed as an `I420Frame`, and one of another size
/// is scaled like a frame of that size.
@Suite struct EncoderViewTests {
    /// Copies `frame` into a buffer with `padding` extra bytes at the end of every row.
    static func padded(_ frame: I420Frame, padding: Int) throws -> I420Frame {
        var out = I420Frame(width: frame.width, height: frame.height, strideY: frame.width + padding,
                            strideUV: frame.chromaWidth + padding / 2)
        var converter = try FrameConverter(width: frame.width, height: frame.height)
        try converter.convert(.i420(frame), into: &out)
        return out
    }

    @Test func aBorrowedPaddedPictureEncodesToTheSameBytes() throws {
        var config = EncoderConfiguration(width: 320, height: 240, targetBitrate: 300_000)
        config.threads = 1
        let pattern = try TestPattern(width: 320, height: 240)
        let owned = try H264Encoder(configuration: config)
        let borrowed = try H264Encoder(configuration: config)
        for index in 0..<20 {
            let frame = pattern.frame(index)
            let capture = try Self.padded(frame, padding: 64)
            let timestamp = Int64(index) * 3000
            let force = index == 12
            let a = try owned.encode(.i420(frame), timestamp: timestamp, forceKeyframe: force)
            let b = try capture.withView { view in
                #expect(view.strideY == 384)
                return try borrowed.encode(view, timestamp: timestamp, forceKeyframe: force)
            }
            #expect(a.encodedFrame?.bytes == b.encodedFrame?.bytes, "frame \(index)")
            #expect(a.encodedFrame?.isKeyframe == b.encodedFrame?.isKeyframe)
            if force { #expect(b.encodedFrame?.isKeyframe == true) }
        }
    }

    @Test func aBorrowedPictureOfAnotherSizeIsScaledLikeAFrame() throws {
        let config = EncoderConfiguration(width: 320, height: 180, targetBitrate: 300_000)
        let source = try TestPattern(width: 640, height: 480).frame(3)
        let owned = try H264Encoder(configuration: config)
        let borrowed = try H264Encoder(configuration: config)
        let a = try #require(try owned.encode(.i420(source), timestamp: 0).encodedFrame)
        let b = try #require(try source.withView { try borrowed.encode($0, timestamp: 0) }.encodedFrame)
        #expect(a.bytes == b.bytes)
        let picture = try #require(try H264Decoder().decode(b.bytes))
        #expect(picture.width == 320 && picture.height == 180)
    }
}
