/// One RTCP packet of a compound (RFC 3550 section 6.1) or reduced-size (RFC 5506) RTCP datagram.
public enum RTCPPacket: Hashable, Sendable {
    /// SR, PT 200.
    case senderReport(SenderReport)
    /// RR, PT 201.
    case receiverReport(ReceiverReport)
    /// SDES, PT 202.
    case sourceDescription(SourceDescription)
    /// BYE, PT 203.
    case goodbye(Goodbye)
    /// Generic NACK, PT 205 FMT 1.
    case nack(GenericNACK)
    /// TMMBR, PT 205 FMT 3.
    case tmmbr(TemporaryMaximumBitrateMessage)
    /// TMMBN, PT 205 FMT 4.
    case tmmbn(TemporaryMaximumBitrateMessage)
    /// PLI, PT 206 FMT 1.
    case pli(PictureLossIndication)
    /// FIR, PT 206 FMT 4.
    case fir(FullIntraRequest)
    /// REMB, PT 206 FMT 15 with the 'REMB' identifier.
    case remb(ReceiverEstimatedMaximumBitrate)
    /// Transport-wide congestion control feedback, PT 205 FMT 15 (draft-holmer-rmcat-transport-wide-cc-extensions-01).
    case transportFeedback(TransportFeedback)
    /// An extended report (RFC 3611): RRTR and DLRR blocks for a receiver's round-trip time.
    case extendedReport(ExtendedReport)
    /// Any other packet, skipped by its length and kept raw.
    case unknown(UnknownRTCPPacket)

    /// Bytes on the wire, header included.
    public var serializedSize: Int {
        switch self {
        case .senderReport(let p): return p.serializedSize
        case .receiverReport(let p): return p.serializedSize
        case .sourceDescription(let p): return p.serializedSize
        case .goodbye(let p): return p.serializedSize
        case .nack(let p): return p.serializedSize
        case .tmmbr(let p), .tmmbn(let p): return p.serializedSize
        case .pli(let p): return p.serializedSize
        case .fir(let p): return p.serializedSize
        case .remb(let p): return p.serializedSize
        case .transportFeedback(let p): return p.serializedSize
        case .extendedReport(let p): return p.serializedSize
        case .unknown(let p): return p.serializedSize
        }
    }
}
