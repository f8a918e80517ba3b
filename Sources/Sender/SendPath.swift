import H264
import NIOCore
import RTP
import SRTP

/// The packetizer and SRTP stages of the send path, with the buffers they reuse for every packet.
///
/// Each packet is written by the packetizer into one reusable `PacketBuffer` (with room for the SRTP tag), protected
/// there in place, and appended to one wire buffer per frame; the datagrams handed to the socket are slices of that
/// wire buffer, sharing its storage. Nothing is allocated per packet; the wire buffer's storage is reused from frame
/// to frame once the socket has released the previous frame's slices.
final class SendPath {
    /// The packetizer: owner of the sequence numbers.
    private(set) var packetizer: H264Packetizer
    /// SRTP for outgoing RTP, or nil for plain RTP.
    let srtp: SRTPSession?
    private var packetBuffer: PacketBuffer
    private var wireBuffer: ByteBuffer
    /// Where each packet of the current frame ends in the wire buffer (reused from frame to frame).
    private var packetEnds: [Int] = []

    /// What one frame cost on the wire.
    struct Sent {
        var packets = 0
        var payloadBytes = 0
        var headerBytes = 0
    }

    init(packetizer: H264Packetizer, srtp: SRTPSession?) {
        self.packetizer = packetizer
        self.srtp = srtp
        self.packetBuffer = packetizer.makePacketBuffer()
        self.wireBuffer = ByteBufferAllocator().buffer(capacity: 256 * 1024)
        self.packetEnds.reserveCapacity(512)
    }

    /// Packetizes and protects one frame, then hands each datagram to `write`.
    ///
    /// All packets of the frame are appended to the wire buffer first and handed out as slices afterwards: a slice
    /// handed out earlier would share the storage, and the next append would then copy the whole buffer.
    /// - Parameters:
    ///   - frame: the access unit.
    ///   - timestamp: its RTP timestamp.
    ///   - write: queues one datagram (a slice of the wire buffer).
    /// - Returns: packet and byte counts.
    /// - Throws: packetizer or SRTP errors (then nothing of the frame is sent).
    func send(_ frame: EncodedFrame, timestamp: RTPTimestamp, write: (ByteBuffer) -> Void) throws -> Sent {
        var sent = Sent()
        let headerSize = packetizer.limit.rtpHeaderSize
        let srtp = self.srtp
        // Moved out for the duration of the frame so the closure below can append to it while the packetizer runs.
        var wire = ByteBuffer()
        swap(&wire, &wireBuffer)
        defer { swap(&wire, &wireBuffer) }
        wire.clear()
        var ends = packetEnds
        packetEnds = []
        defer { packetEnds = ends }
        ends.removeAll(keepingCapacity: true)
        try packetizer.packetize(frame, timestamp: timestamp, into: &packetBuffer) { packet in
            sent.payloadBytes += packet.count - headerSize
            sent.headerBytes += headerSize
            sent.packets += 1
            if let srtp {
                try packet.withUnsafeMutableBytes { raw, length in
                    length = try srtp.protectRTP(raw, length: length)
                }
            }
            packet.withUnsafeBytes { _ = wire.writeBytes($0) }
            ends.append(wire.writerIndex)
        }
        var start = 0
        for end in ends {
            write(wire.getSlice(at: start, length: end - start)!)
            start = end
        }
        return sent
    }
}
