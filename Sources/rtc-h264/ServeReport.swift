import Sender

/// One line of `serve --stats`.
struct ServeReport: Encodable {
    struct Viewer: Encodable {
        var id: String
        var remote: String?
        var connected: Bool
        /// Our side of the selected pair: `host` or `relay` (`getStats()`'s `candidateType`).
        var localCandidateType: String?
        /// The viewer's side of the selected pair: `host`, `srflx`, `relay` or `prflx`.
        var remoteCandidateType: String?
        /// How a relayed pair reaches its TURN server: `udp`, `tcp` or `tls`.
        var relayProtocol: String?
        /// ICE restarts the viewer made.
        var iceRestarts: Int
        /// Candidates the viewer trickled.
        var trickledCandidates: Int
        /// With --simulcast: the viewer's layer (`q`, `h`, `f`) and how often it moved.
        var layer: String?
        var layerSwitches: Int?
        var stats: SenderStats
    }

    var timestamp: Double
    var viewers: Int
    var framesEncoded: Int
    /// The operator's bitrate (`--bitrate`, or what the control endpoint set): the ceiling over every viewer.
    var operatorBitrate: Int
    var appliedBitrate: Int
    var viewerStats: [Viewer]
}
