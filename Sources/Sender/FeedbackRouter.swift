import MediaTime
import RTP

/// What the peer's RTCP asks of the sender, one case per feedback stage; "our SSRC" is the media SSRC of the stream
/// the feedback is routed to.
public enum Feedback: Sendable, Equatable {
    /// A Picture Loss Indication (RFC 4585 section 6.3.1) for our SSRC.
    case pictureLoss
    /// A Full Intra Request (RFC 5104 section 4.3.1) for our SSRC, not a retransmission of the previous one.
    case fullIntraRequest
    /// A REMB estimate (draft-alvestrand-rmcat-remb) covering our SSRC, in bit/s.
    case estimatedMaximumBitrate(Int)
    /// A TMMBR entry (RFC 5104 section 4.2.1) for our SSRC.
    case temporaryMaximumBitrate(TemporaryMaximumBitrateEntry)
    /// A generic NACK (RFC 4585 section 6.2.1) for our SSRC.
    case negativeAcknowledgement(GenericNACK)
    /// A report block about our stream (in an RR or SR).
    case receptionReport(ReportBlock)
    /// Transport-wide feedback (draft-holmer-rmcat-transport-wide-cc-extensions-01 section 3.1). It covers every
    /// packet of the transport, whatever media SSRC it names (libwebrtc names its first one).
    case transportFeedback(TransportFeedback)
    /// A receiver's Receiver Reference Time (RFC 3611 section 4.4): answered with a DLRR block in our next report,
    /// from which that receiver computes its round-trip time.
    case receiverReferenceTime(from: SSRC, time: NTPTimestamp)
}

/// The inbound feedback router: turns the peer's parsed RTCP into `Feedback` for our SSRCs, each with the index of the
/// stream it names, dropping what is not for us and FIR retransmissions (RFC 5104 section 4.3.1.2: a repeated
/// sequence number from one requester for one stream is the same request). Pure.
public struct FeedbackRouter: Sendable {
    /// Our first (with one stream, our only) media SSRC.
    public let ssrc: SSRC
    /// Every stream's media SSRC, in the session's order (the first is `ssrc`): feedback naming the SSRC at index i
    /// is for stream i.
    package let ssrcs: [SSRC]
    /// The last FIR sequence number seen from each requester for each of our streams.
    private var lastFIRSequenceNumber: [FIRSource: UInt8] = [:]
    /// Requesters remembered at most (a peer inventing sender SSRCs cannot grow the table without bound).
    static let maximumFIRRequesters = 64

    /// One requester's FIRs for one of our streams (RFC 5104 section 4.3.1.2: the sequence number counts per pair).
    private struct FIRSource: Hashable, Sendable {
        /// The requester's SSRC.
        var requester: SSRC
        /// Our stream's media SSRC.
        var media: SSRC
    }

    /// Creates a router for one stream.
    /// - Parameter ssrc: our media SSRC.
    public init(ssrc: SSRC) { self.init(ssrc: ssrc, additional: []) }

    /// Creates a router for several streams.
    /// - Parameters:
    ///   - ssrc: the first stream's media SSRC.
    ///   - additional: the other streams' media SSRCs, in order (stream 1, 2, ...).
    package init(ssrc: SSRC, additional: [SSRC]) {
        self.ssrc = ssrc
        self.ssrcs = [ssrc] + additional
    }

    /// Routes one compound packet.
    /// - Parameter packets: the parsed compound.
    /// - Returns: the feedback for our streams, in order.
    public mutating func route(_ packets: [RTCPPacket]) -> [Feedback] {
        routeToStreams(packets).map(\.feedback)
    }

    /// Routes one compound packet to our streams. Feedback for the whole transport (REMB, transport-wide feedback)
    /// comes once, for the first stream it names (the first stream when it names none of ours by SSRC).
    /// - Parameter packets: the parsed compound.
    /// - Returns: the feedback for our streams, in order, each with its stream's index in `ssrcs`.
    package mutating func routeToStreams(_ packets: [RTCPPacket]) -> [(stream: Int, feedback: Feedback)] {
        var out: [(stream: Int, feedback: Feedback)] = []
        for packet in packets {
            switch packet {
            case .pli(let pli):
                if let stream = stream(of: pli.mediaSSRC) { out.append((stream, .pictureLoss)) }
            case .fir(let fir):
                for entry in fir.entries {
                    guard let stream = stream(of: entry.ssrc) else { continue }
                    let source = FIRSource(requester: fir.senderSSRC, media: entry.ssrc)
                    if lastFIRSequenceNumber[source] == entry.sequenceNumber { continue }
                    if lastFIRSequenceNumber.count >= Self.maximumFIRRequesters { lastFIRSequenceNumber.removeAll() }
                    lastFIRSequenceNumber[source] = entry.sequenceNumber
                    out.append((stream, .fullIntraRequest))
                }
            case .remb(let remb):
                if remb.ssrcs.isEmpty {
                    out.append((0, .estimatedMaximumBitrate(Int(clamping: remb.bitrate))))
                } else if let stream = firstStream(in: remb.ssrcs) {
                    out.append((stream, .estimatedMaximumBitrate(Int(clamping: remb.bitrate))))
                }
            case .tmmbr(let tmmbr):
                for entry in tmmbr.entries {
                    if let stream = stream(of: entry.ssrc) { out.append((stream, .temporaryMaximumBitrate(entry))) }
                }
            case .nack(let nack):
                if let stream = stream(of: nack.mediaSSRC) { out.append((stream, .negativeAcknowledgement(nack))) }
            case .receiverReport(let rr):
                for block in rr.reportBlocks {
                    if let stream = stream(of: block.ssrc) { out.append((stream, .receptionReport(block))) }
                }
            case .senderReport(let sr):
                for block in sr.reportBlocks {
                    if let stream = stream(of: block.ssrc) { out.append((stream, .receptionReport(block))) }
                }
            case .transportFeedback(let feedback):
                out.append((0, .transportFeedback(feedback)))
            case .extendedReport(let report):
                for block in report.blocks {
                    if case .receiverReferenceTime(let time) = block {
                        out.append((0, .receiverReferenceTime(from: report.ssrc, time: time)))
                    }
                }
            default:
                break
            }
        }
        return out
    }

    /// The index of the stream whose media SSRC is `ssrc`, or nil when it is none of ours.
    private func stream(of ssrc: SSRC) -> Int? {
        var index = 0
        while index < ssrcs.count {  // not `firstIndex(of:)`: a few SSRCs, and no generic call per packet
            if ssrcs[index] == ssrc { return index }
            index += 1
        }
        return nil
    }

    /// The first of `named` that is one of our streams, as its index.
    private func firstStream(in named: [SSRC]) -> Int? {
        var index = 0
        while index < named.count {
            if let stream = stream(of: named[index]) { return stream }
            index += 1
        }
        return nil
    }
}
