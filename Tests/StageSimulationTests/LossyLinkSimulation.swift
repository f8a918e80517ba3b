import H264
import MediaTime
import RTP
import Receiver
import Sender
import TestSupport

/// The pure stages wired the way the sender and receiver will wire them, over a simulated link with random loss
/// and a fixed delay each way, driven by a 1 ms fake clock:
///
/// sender:   frame -> H264Packetizer.plan -> PacketHistory.store -> Pacer.enqueue -> Pacer.dequeue -> write -> link
///           NACK -> NACKResponder.respond -> Pacer.enqueue(.retransmission) -> dequeue -> writeRetransmission -> link
/// receiver: link -> (RTX: RTXPacket.restore) -> NACKGenerator.received + JitterBuffer.insert -> JitterBuffer.pop
///           NACKGenerator.poll -> GenericNACK -> link back
///           JitterBuffer .lost -> keyframe request, NACKGenerator.removeMissing(before:)
struct LossyLinkSimulation {
    static let mediaSSRC = SSRC(0x1111_1111)
    static let rtxSSRC = SSRC(0x2222_2222)
    static let receiverSSRC = SSRC(0x3333_3333)
    static let mediaPT = PayloadType(96)
    static let rtxPT = PayloadType(97)

    var loss: Double
    var oneWayDelay: Int64 = 25
    var bitrate = 1_500_000
    var nackEnabled = true
    var seed: UInt64 = 1

    struct Result {
        var mediaPackets = 0
        var released = 0
        var lost = 0
        var mediaBytes = 0
        var retransmittedBytes = 0
        var nacksSent = 0
        var keyframeRequests = 0
        var maxResendsOfOnePacket = 0
        var restoredMismatches = 0
        var responder = NACKResponderStatistics()
    }

    func run(seconds: Int64) throws -> Result {
        var random = SplitMix64(seed: seed)
        var history = try PacketHistory()
        var responder = NACKResponder(mediaSSRC: Self.mediaSSRC, targetBitrate: bitrate)
        responder.roundTripTime = .milliseconds(2 * oneWayDelay)
        history.roundTripTime = .milliseconds(2 * oneWayDelay)
        var pacer = try Pacer(targetBitrate: bitrate)
        var generator = NACKGenerator()
        generator.roundTripTime = .milliseconds(2 * oneWayDelay)
        // Long enough for two NACK rounds (2 x RTT) plus pacing, at least 300 ms.
        var jitter = try JitterBuffer<[UInt8]>(maximumWait: .milliseconds(max(300, 5 * oneWayDelay + 50)))
        var forward: [(at: Int64, bytes: [UInt8])] = []
        var backward: [(at: Int64, nack: GenericNACK)] = []
        var result = Result()
        // Single NAL unit packets of 1,200 bytes (1,188 of payload, plain RTP).
        var packetizer = try H264Packetizer(
            ssrc: Self.mediaSSRC, payloadType: Self.mediaPT, firstSequenceNumber: SequenceNumber(1000),
            mtu: 1188 + 20 + 8 + RTPHeader.fixedSize, srtpTrailerSize: 0)
        var rtxSequence = SequenceNumber(0)
        var resend: [SequenceNumber] = []
        var nackList: [SequenceNumber] = []
        var sendBuffer = [UInt8](repeating: 0, count: 1500)
        var originals: [UInt16: [UInt8]] = [:]
        var resendCounts: [UInt16: Int] = [:]
        let frameBytes = bitrate / 8 / 30
        let packetsPerFrame = (frameBytes + 1199) / 1200

        for t in Int64(0)..<(seconds * 1000) {
            let now = MonotonicTime(nanoseconds: t * 1_000_000)
            // A frame every 33 ms (none in the last second, so that the tail can be repaired): packetize, store, queue.
            if t % 33 == 0, t < (seconds - 1) * 1000 {
                // Filler with the high bit set: no start code inside.
                let slice = [UInt8(0x41)] + [UInt8](repeating: UInt8(0x80 | (t & 0x7F)), count: 1187)
                let frame = EncodedFrame(
                    annexB: AnnexB.serialize([[UInt8]](repeating: slice, count: packetsPerFrame)), timestamp: t * 90)
                let writer = packetizer
                try packetizer.plan(frame, timestamp: RTPTimestamp(UInt32(truncatingIfNeeded: t * 90))) { packet in
                    history.store(packet, of: frame, now: now)
                    var original = [UInt8](repeating: 0, count: packet.size)
                    _ = try original.withUnsafeMutableBytes { try writer.write(packet, of: frame, into: $0) }
                    originals[packet.sequenceNumber.rawValue] = original
                    pacer.enqueue(
                        PacedPacket(sequenceNumber: packet.sequenceNumber, size: packet.size, kind: .media), now: now)
                    result.mediaPackets += 1
                }
            }
            // The pacer releases what is due.
            while let paced = pacer.dequeue(now: now) {
                let deliver = t + oneWayDelay
                switch paced.kind {
                case .media:
                    guard let (packet, frame) = history.packet(paced.sequenceNumber, now: now) else { continue }
                    let length = try sendBuffer.withUnsafeMutableBytes { try packetizer.write(packet, of: frame, into: $0) }
                    result.mediaBytes += length
                    if Double.random(in: 0..<1, using: &random) >= loss {
                        forward.append((deliver, Array(sendBuffer[0..<length])))
                    }
                case .probe:
                    break  // this simulation sends no probes (no transport-wide feedback)
                case .forwardErrorCorrection:
                    break  // nor FEC
                case .retransmission:
                    guard let (packet, frame) = history.packet(paced.sequenceNumber, now: now) else { continue }
                    let length = try sendBuffer.withUnsafeMutableBytes { out in
                        try packetizer.writeRetransmission(
                            packet, of: frame, ssrc: Self.rtxSSRC, payloadType: Self.rtxPT, sequenceNumber: rtxSequence,
                            into: out)
                    }
                    rtxSequence += 1
                    result.retransmittedBytes += length
                    resendCounts[paced.sequenceNumber.rawValue, default: 0] += 1
                    if Double.random(in: 0..<1, using: &random) >= loss {
                        forward.append((deliver, Array(sendBuffer[0..<length])))
                    }
                }
            }
            // The receiver takes what arrived.
            while let first = forward.first, first.at <= t {
                forward.removeFirst()
                var bytes = first.bytes
                let view = try RTPPacketView(parsing: bytes)
                var isRetransmission = false
                if view.header.ssrc == Self.rtxSSRC {
                    bytes = try RTXPacket.restore(from: bytes, mediaSSRC: Self.mediaSSRC, payloadType: Self.mediaPT)
                    isRetransmission = true
                }
                let seq = SequenceNumber(UInt16(bytes[2]) << 8 | UInt16(bytes[3]))
                if bytes != originals[seq.rawValue] { result.restoredMismatches += 1 }
                generator.received(seq, now: now, isRetransmission: isRetransmission)
                jitter.insert(bytes, sequenceNumber: seq, now: now)
            }
            while let output = jitter.pop(now: now) {
                switch output {
                case .packet: result.released += 1
                case .lost(let first, let count):
                    // The frame is broken: ask for a keyframe (the wiring's PLI throttle would rate-limit this) and
                    // stop NACKing what the buffer has skipped.
                    result.lost += count
                    result.keyframeRequests += 1
                    generator.removeMissing(before: first + count)
                }
            }
            // NACKs every 5 ms.
            if nackEnabled, t % 5 == 0 {
                if generator.poll(now: now, into: &nackList) { result.keyframeRequests += 1 }
                if !nackList.isEmpty {
                    result.nacksSent += 1
                    let nack = GenericNACK(senderSSRC: Self.receiverSSRC, mediaSSRC: Self.mediaSSRC, lost: nackList)
                    if Double.random(in: 0..<1, using: &random) >= loss { backward.append((t + oneWayDelay, nack)) }
                }
            }
            while let first = backward.first, first.at <= t {
                backward.removeFirst()
                resend.removeAll(keepingCapacity: true)
                responder.respond(to: first.nack, now: now, history: &history, retransmit: &resend)
                for seq in resend {
                    let size = history.size(of: seq, now: now)! + RTXPacket.originalSequenceNumberSize
                    pacer.enqueue(PacedPacket(sequenceNumber: seq, size: size, kind: .retransmission), now: now)
                }
            }
        }
        // Let the tail settle: anything still unreleased counts as lost.
        result.lost += result.mediaPackets - result.released - result.lost
        result.maxResendsOfOnePacket = resendCounts.values.max() ?? 0
        result.responder = responder.statistics
        return result
    }
}
