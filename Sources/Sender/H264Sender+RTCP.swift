import NIOCore
import RTP

extension H264Sender {
    /// A datagram from the network. On the event loop.
    func received(from address: SocketAddress, _ buffer: inout ByteBuffer) {
        // TODO after RTCP lands
    }

    func sendSenderReport() {
        // TODO after RTCP lands
    }

    func sendGoodbye() {
        // TODO after RTCP lands
    }
}
