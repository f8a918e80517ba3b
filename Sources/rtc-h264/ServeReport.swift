import Sender

/// One line of `serve --stats`.
struct ServeReport: Encodable {
    struct Viewer: Encodable {
        var id: String
        var remote: String?
        var connected: Bool
        var stats: SenderStats
    }

    var timestamp: Double
    var viewers: Int
    var framesEncoded: Int
    var appliedBitrate: Int
    var viewerStats: [Viewer]
}
