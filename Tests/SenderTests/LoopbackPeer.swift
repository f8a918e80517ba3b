import Codec
import H264
import Testing
import TestSupport
import NIOCore
import NIOPosix
import RTP
import SRTP
import Synchronization
import Transport
@testable import Sender

/// A test peer on a real loopback UDP socket (our `UDPTransport`, learning the sender's address from its first
/// packet): records the RTP frames and RTCP packets the sender sends it, and sends RTCP feedback back, protected with
/// its own key when SRTP is on.
final class LoopbackPeer: Sendable {
    struct Record {
        var frames: [H264ReceivedFrame] = []
        var rtcp: [RTCPPacket] = []
    }

    let ssrc = SSRC(0x5EED_0001)
    let eventLoop: EventLoop
    let port: Int
    private let transport: NIOLoopBound<UDPTransport>
    private let record: NIOLoopBoundBox<Record>

    /// Binds a peer.
    /// - Parameters:
    ///   - security: the sender's suite and key (what the peer unprotects with), or nil for plain RTP.
    ///   - peerKey: the key the peer protects its RTCP with (default: the sender's key).
    init(host: String = "127.0.0.1", security: SenderConfiguration.Security? = nil, peerKey: SRTPMasterKey? = nil) async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        eventLoop = loop
        let configuration = TransportConfiguration(
            localHost: host, localPort: 0, peer: nil, rtcpMux: true,
            security: security.map { TransportSecurity(suite: $0.suite, outboundKey: peerKey ?? $0.key, inboundKey: $0.key) })
        transport = try await UDPTransport.bind(configuration: configuration, eventLoop: loop)
        let transport = self.transport
        record = try await loop.submit {
            let record = NIOLoopBoundBox(Record(), eventLoop: loop)
            var depacketizer = H264Depacketizer()
            transport.value.onRTP = { bytes, _ in
                for case .frame(let frame) in depacketizer.push([UInt8](bytes)) { record.value.frames.append(frame) }
            }
            transport.value.onRTCP = { packets in record.value.rtcp += packets }
            return record
        }.get()
        port = try await loop.submit { transport.value.localPort }.get()
    }

    /// What the peer has received so far.
    func received() async throws -> Record {
        let record = self.record
        return try await eventLoop.submit { record.value }.get()
    }

    /// Sends RTCP packets (as one compound, behind an RR) to the sender.
    func send(_ packets: [RTCPPacket], withReport: Bool = true) async throws {
        let compound: [RTCPPacket] = (withReport ? [.receiverReport(ReceiverReport(ssrc: ssrc))] : []) + packets
        let transport = self.transport
        try await eventLoop.submit { try transport.value.sendRTCP(compound) }.get()
    }

    /// Waits until the peer's record satisfies `condition`, or fails after `seconds`.
    func waitUntil(seconds: Double = 10, _ what: String = "condition", _ condition: @escaping @Sendable (Record) -> Bool) async throws {
        if try await !Poll.until(seconds: seconds, every: .milliseconds(5), { condition(try await received()) }) {
            Issue.record("\(what) not met within \(seconds) s")
        }
    }

    func close() async {
        let transport = self.transport
        try? await eventLoop.submit { transport.value.close() }.get()
    }
}

/// Waits until `condition` holds on the sender's statistics, or fails after `seconds`.
func waitUntil(_ sender: H264Sender, seconds: Double = 10, _ what: String = "condition",
               _ condition: @escaping @Sendable (SenderStats) -> Bool) async throws {
    if await !Poll.until(seconds: seconds, every: .milliseconds(5), { condition(await sender.statistics()) }) {
        Issue.record("\(what) not met within \(seconds) s")
    }
}

/// What a sender sent, recorded by its frame observer (on the I/O loop).
final class SentLog: Sendable {
    struct Entry: Sendable {
        var isKeyframe: Bool
        var rtpTimestamp: UInt32
        var size: Int
    }
    private let entries = Mutex<[Entry]>([])
    var all: [Entry] { entries.withLock { $0 } }
    var observer: @Sendable (EncodedFrame, RTPTimestamp) -> Void {
        { frame, timestamp in
            self.entries.withLock { $0.append(Entry(isKeyframe: frame.isKeyframe, rtpTimestamp: timestamp.rawValue, size: frame.size)) }
        }
    }
}
