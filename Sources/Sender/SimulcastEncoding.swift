public import CongestionControl
import RTP

/// One simulcast encoding of a sender (`SenderConfiguration.simulcast`): its RTP stream id and its layer (size and
/// bitrates). Each has an encoder, an SSRC and an RTX SSRC of its own.
public struct SimulcastEncoding: Hashable, Sendable {
    /// The RTP stream id (`a=rid`, the `rtp-stream-id` header extension): 1-16 letters, digits, `-` or `_`.
    public var rid: String
    /// Its size and bitrates.
    public var layer: SimulcastLayer

    /// Creates an encoding.
    /// - Parameters:
    ///   - rid: the RTP stream id.
    ///   - layer: the size and bitrates.
    public init(rid: String, layer: SimulcastLayer) {
        self.rid = rid
        self.layer = layer
    }

    /// The RTP stream ids of libwebrtc-style layers, lowest first: `q`, `h`, `f` (quarter, half, full size).
    public static let standardRIDs = ["q", "h", "f"]

    /// `count` encodings of a `width` x `height` stream (1-3), lowest first: libwebrtc's layers
    /// (`SimulcastLayer.standardLayers`) with the ids of `standardRIDs` (the highest is always `f`).
    /// - Parameters:
    ///   - width: the full picture's width.
    ///   - height: the full picture's height.
    ///   - count: the encodings, 1-3 (others are clamped).
    /// - Returns: the encodings, lowest first.
    public static func standard(width: Int, height: Int, count: Int) -> [SimulcastEncoding] {
        let count = min(max(count, 1), standardRIDs.count)
        return zip(standardRIDs.suffix(count), SimulcastLayer.standardLayers(width: width, height: height, count: count))
            .map { SimulcastEncoding(rid: $0, layer: $1) }
    }

    /// Whether `rid` is a valid RTP stream id (`RTPStreamID.isValid`).
    public static func isValidRID(_ rid: String) -> Bool { RTPStreamID.isValid(rid) }
}
