/// One simulcast encoding's figures in `SenderStats.simulcastLayers` (W3C webrtc-stats: one `outbound-rtp` per
/// encoding, with its `rid`).
public struct SimulcastLayerStats: Codable, Sendable, Equatable {
    /// `rid`.
    public var rid: String
    /// `ssrc`.
    public var ssrc: UInt32
    /// `frameWidth` (0 before the encoder's first picture).
    public var frameWidth: Int = 0
    /// `frameHeight`.
    public var frameHeight: Int = 0
    /// `framesSent`.
    public var framesSent: Int = 0
    /// Keyframes sent.
    public var keyFramesSent: Int = 0
    /// `packetsSent`.
    public var packetsSent: Int = 0
    /// `bytesSent` (RTP payload bytes).
    public var bytesSent: Int = 0
    /// The bitrate sent over the last report interval, bit/s.
    public var actualBitrate: Int = 0
    /// `active`: whether the congestion estimate carries the layer now (a paused layer sends nothing).
    public var active: Bool = true

    /// Creates a layer's figures.
    /// - Parameters:
    ///   - rid: its RTP stream id.
    ///   - ssrc: its media SSRC.
    public init(rid: String, ssrc: UInt32) {
        self.rid = rid
        self.ssrc = ssrc
    }
}
