import RTP

/// What the peer's RTCP asks of the sender, one case per feedback stage.
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
}

/// The inbound feedback router: turns the peer's parsed RTCP into `Feedback` for our SSRC, dropping what is not for
/// us and FIR retransmissions (RFC 5104 section 4.3.1.2: a repeated sequence number is the same request). Pure.
public struct FeedbackRouter: Sendable {
    /// Our media SSRC.
    public let ssrc: SSRC
    /// The last FIR sequence number seen from each requester.
    private var lastFIRSequenceNumber: [SSRC: UInt8] = [:]
    /// Requesters remembered at most (a peer inventing sender SSRCs cannot grow the table without bound).
    static let maximumFIRRequesters = 64

    /// Creates a router.
    /// - Parameter ssrc: our media SSRC.
    public init(ssrc: SSRC) { self.ssrc = ssrc }

    /// Routes one compound packet.
    /// - Parameter packets: the parsed compound.
    /// - Returns: the feedback for our stream, in order.
    public mutating func route(_ packets: [RTCPPacket]) -> [Feedback] {
        var out: [Feedback] = []
        for packet in packets {
            switch packet {
            case .pli(let pli) where pli.mediaSSRC == ssrc:
                out.append(.pictureLoss)
            case .fir(let fir):
                for entry in fir.entries where entry.ssrc == ssrc {
                    if lastFIRSequenceNumber[fir.senderSSRC] == entry.sequenceNumber { continue }
                    if lastFIRSequenceNumber.count >= Self.maximumFIRRequesters { lastFIRSequenceNumber.removeAll() }
                    lastFIRSequenceNumber[fir.senderSSRC] = entry.sequenceNumber
                    out.append(.fullIntraRequest)
                }
            case .remb(let remb) where remb.ssrcs.isEmpty || remb.ssrcs.contains(ssrc):
                out.append(.estimatedMaximumBitrate(Int(clamping: remb.bitrate)))
            case .tmmbr(let tmmbr):
                for entry in tmmbr.entries where entry.ssrc == ssrc {
                    out.append(.temporaryMaximumBitrate(entry))
                }
            case .nack(let nack) where nack.mediaSSRC == ssrc:
                out.append(.negativeAcknowledgement(nack))
            case .receiverReport(let rr):
                for block in rr.reportBlocks where block.ssrc == ssrc { out.append(.receptionReport(block)) }
            case .senderReport(let sr):
                for block in sr.reportBlocks where block.ssrc == ssrc { out.append(.receptionReport(block)) }
            case .transportFeedback(let feedback):
                out.append(.transportFeedback(feedback))
            default:
                break
            }
        }
        return out
    }
}
