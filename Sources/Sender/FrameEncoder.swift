import Codec
import Video

/// What the encoder stage needs of an encoder: OpenH264's `H264Encoder` in production, a scripted encoder in the
/// tests that check how the sender survives a failing frame.
package protocol FrameEncoder: AnyObject {
    /// The configuration in force (its target and ceiling are the applied rates).
    var configuration: EncoderConfiguration { get }
    /// Encodes one picture (see `H264Encoder.encode(_:timestamp:forceKeyframe:)`).
    func encode(_ view: I420FrameView, timestamp: Int64, forceKeyframe: Bool) throws -> EncodeResult
    /// Changes the target and ceiling; on failure nothing changes.
    func setBitrate(target: Int, maxBitrate: Int?) throws
    /// Changes the frame rate; on failure nothing changes.
    func setFrameRate(_ frameRate: Double) throws
}

extension H264Encoder: FrameEncoder {}
