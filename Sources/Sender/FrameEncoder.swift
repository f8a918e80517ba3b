import Codec
import MediaTime
import RTP
import Video

/// What the encoder stage needs of an encoder: OpenH264 behind `AdaptiveH264Encoder` in production (the size follows
/// the bitrate), a plain `H264Encoder`, or a scripted encoder in the tests that check how the sender survives a
/// failing frame.
package protocol FrameEncoder: AnyObject {
    /// The stream's configuration in force (its target and ceiling are the applied rates).
    var configuration: EncoderConfiguration { get }
    /// Encodes one picture (see `AdaptiveH264Encoder.encode(_:timestamp:now:forceKeyframe:allowResolutionChange:)`);
    /// a size switch (an IDR) only when `allowResolutionChange`.
    func encode(_ view: I420FrameView, timestamp: Int64, now: MonotonicTime, forceKeyframe: Bool,
                allowResolutionChange: Bool) throws -> AdaptiveEncodeResult
    /// Changes the target and ceiling; on failure nothing changes.
    func setBitrate(target: Int, maxBitrate: Int?) throws
    /// Changes the frame rate; on failure nothing changes.
    func setFrameRate(_ frameRate: Double) throws
}

extension AdaptiveH264Encoder: FrameEncoder {}

extension H264Encoder: FrameEncoder {
    package func encode(_ view: I420FrameView, timestamp: Int64, now: MonotonicTime, forceKeyframe: Bool,
                        allowResolutionChange: Bool) throws -> AdaptiveEncodeResult {
        AdaptiveEncodeResult(output: try encode(view, timestamp: timestamp, forceKeyframe: forceKeyframe), resolutionChange: nil)
    }
}
