import Codec
import NIOCore
import NIOPosix
import RTP
import SRTP
@testable import Sender

/// A test peer on a real loopback UDP socket: records the RTP frames and RTCP packets the sender sends it, and
/// sends RTCP feedback back (optionally SRTCP-protected). Everything runs on the given event loop.
final class LoopbackPeer: @unchecked Sendable {
    let endpoint: DatagramEndpoint
    private var depacketizer = H264Depacketizer()
    private let srtpIn: SRTPSession?
    private let srtcpOut: SRTPSession?
    private(set) var frames: [H264ReceivedFrame] = []
    private(set) var rtcp: [RTCPPacket] = []
    private(set) var senderAddress: SocketAddress?
    let ssrc: UInt32 = 0x5EED_0001

    init(eventLoop: EventLoop, host: String = "127.0.0.1", security: SenderConfiguration.Security? = nil) async throws {
        srtpIn = try security.map { try SRTPSession(direction: .inbound, suite: $0.suite, key: $0.key) }
        srtcpOut = try security.map { try SRTPSession(direction: .outbound, suite: $0.suite, key: $0.key) }
        let box = WeakBox<LoopbackPeer>()
        endpoint = try await DatagramEndpoint(
            host: host, port: 0, eventLoop: eventLoop,
            onDatagram: { from, buffer in box.value?.received(from: from, &buffer) }, onError: { _ in })
        box.value = self
    }

    var port: Int { endpoint.localAddress!.port! }

    private func received(from: SocketAddress, _ buffer: inout ByteBuffer) {
        senderAddress = from
        var bytes = [UInt8](buffer.readableBytesView)
        let isRTCP = RTCPPacket.isMultiplexedRTCP(bytes[...])
        if let srtp = srtpIn {
            guard let n = try? (isRTCP ? srtp.unprotectRTCP(&bytes, length: bytes.count) : srtp.unprotectRTP(&bytes, length: bytes.count))
            else { return }
            bytes.removeLast(bytes.count - n)
        }
        if isRTCP {
            rtcp += (try? RTCPPacket.parseCompound(bytes)) ?? []
        } else {
            for case .frame(let frame) in depacketizer.push(bytes) { frames.append(frame) }
        }
    }

    /// Sends RTCP packets (as one compound, behind an RR) to the sender.
    func send(_ packets: [RTCPPacket], withReport: Bool = true) throws {
        var compound: [RTCPPacket] = withReport ? [.receiverReport(ReceiverReport(ssrc: SSRC(ssrc)))] : []
        compound += packets
        var bytes = try RTCPPacket.serialized(compound)
        if let srtcp = srtcpOut {
            let length = bytes.count
            bytes += [UInt8](repeating: 0, count: SRTPSuite.maxRTCPTrailer)
            let n = try srtcp.protectRTCP(&bytes, length: length)
            bytes.removeLast(bytes.count - n)
        }
        sendRaw(bytes)
    }

    /// Sends any bytes to the sender.
    func sendRaw(_ bytes: [UInt8]) {
        guard let to = senderAddress else { return }
        endpoint.write(ByteBuffer(bytes: bytes), to: to)
        endpoint.flush()
    }

    func close() async { await endpoint.close() }
}
