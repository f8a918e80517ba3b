import Sender

/// A WHEP server's statistics: the shared encoder's frames and rates, and every viewer's stream (`GET /stats` of
/// `serve --control`).
public struct WHEPServerStatistics: Sendable, Encodable {
    /// Viewers connected or connecting.
    public var viewers: Int
    /// Frames the shared encoder produced.
    public var framesEncoded: Int
    /// Frames replaced in the mailbox before the encoder took them.
    public var framesDropped: Int
    /// The frame rate the encoder plans for.
    public var framesPerSecond: Double
    /// The operator's bitrate (the ceiling over every viewer), in bit/s.
    public var operatorBitrate: Int
    /// The target the shared encoder follows (the weakest viewer's, at most the operator's), in bit/s.
    public var appliedBitrate: Int
    /// The ceiling the shared encoder follows, in bit/s.
    public var appliedMaxBitrate: Int
    /// Every viewer, by id.
    public var viewerStats: [WHEPViewerStatistics]
}
