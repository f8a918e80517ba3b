public import Sender

/// One viewer of a WHEP server, now.
public struct WHEPViewerStatistics: Sendable, Encodable {
    /// The session id (the last path component of its `Location`).
    public var id: String
    /// The viewer's address once ICE selected it (`IP:port`).
    public var remote: String?
    /// Whether ICE and DTLS finished (media flows).
    public var connected: Bool
    /// Our side of the selected pair once there is one, as `getStats()` names it: `host`, or `relay` (through a TURN
    /// server of `WHEPServer.Options.iceServers`).
    public var localCandidateType: String?
    /// The viewer's side of the selected pair: the type of its candidate there (`host`, `srflx`, `relay`), or `prflx`
    /// when the viewer did not signal that address (an mDNS host candidate, a NAT's mapping).
    public var remoteCandidateType: String?
    /// How a relayed pair reaches its TURN server: `udp`, `tcp` or `tls` (`getStats()`'s `relayProtocol`), or nil.
    public var relayProtocol: String?
    /// ICE restarts the viewer made (`PATCH` with `If-Match: "*"`).
    public var iceRestarts: Int
    /// Candidates the viewer trickled (`PATCH`) for its current ICE credentials.
    public var trickledCandidates: Int
    /// The viewer's stream: its SSRC, frames and packets sent, NACKs, PLIs, REMB, RTT and loss.
    public var sender: SenderStats
    /// With `serve --simulcast`: the RTP stream id of the layer the viewer gets (`q`, `h`, `f`); nil otherwise.
    public var layer: String? = nil
    /// With `serve --simulcast`: how often the viewer moved to another layer.
    public var layerSwitches: Int = 0
}
