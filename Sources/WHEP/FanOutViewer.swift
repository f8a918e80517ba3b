import Sender

/// One viewer of a `FanOutEncoder`: its `SharedEncoderSession`, on its transport's loop.
package final class FanOutViewer: Sendable {
    /// The viewer's number within its encoder.
    package let id: UInt64
    private let session: SharedEncoderSession
    private let fanOut: FanOutEncoder

    init(id: UInt64, session: SharedEncoderSession, fanOut: FanOutEncoder) {
        self.id = id
        self.session = session
        self.fanOut = fanOut
    }

    /// Detaches and finishes on the viewer's loop (call there): the BYE leaves; the transport stays open for its
    /// owner to send what must follow (DTLS close_notify) and close it.
    package func finishOnLoop() {
        fanOut.detach(id)
        session.finishOnLoop()
    }

    /// The viewer's statistics now (call on the viewer's loop).
    package func snapshotOnLoop() -> SenderStats { session.snapshotOnLoop() }

    /// The simulcast layer the viewer gets (its RTP stream id) and the switches it made; nil without simulcast.
    package var layer: (rid: String, switches: Int)? { fanOut.layer(of: id) }
}
