/// RTCP packet type values (the PT field) and feedback message types (the FMT field) this package knows.
public enum RTCPPacketType {
    /// Sender report (RFC 3550 section 6.4.1).
    public static let senderReport: UInt8 = 200
    /// Receiver report (RFC 3550 section 6.4.2).
    public static let receiverReport: UInt8 = 201
    /// Source description (RFC 3550 section 6.5).
    public static let sourceDescription: UInt8 = 202
    /// Goodbye (RFC 3550 section 6.6).
    public static let goodbye: UInt8 = 203
    /// Application-defined (RFC 3550 section 6.7); parsed as `.unknown`.
    public static let applicationDefined: UInt8 = 204
    /// Transport-layer feedback, RTPFB (RFC 4585 section 6.1).
    public static let transportFeedback: UInt8 = 205
    /// Payload-specific feedback, PSFB (RFC 4585 section 6.1).
    public static let payloadFeedback: UInt8 = 206
    /// Extended report, XR (RFC 3611 section 2).
    public static let extendedReport: UInt8 = 207

    /// RTPFB FMT 1: generic NACK (RFC 4585 section 6.2.1).
    public static let genericNACKFormat: UInt8 = 1
    /// RTPFB FMT 3: TMMBR (RFC 5104 section 4.2.1).
    public static let tmmbrFormat: UInt8 = 3
    /// RTPFB FMT 4: TMMBN (RFC 5104 section 4.2.2).
    public static let tmmbnFormat: UInt8 = 4
    /// PSFB FMT 1: picture loss indication (RFC 4585 section 6.3.1).
    public static let pliFormat: UInt8 = 1
    /// PSFB FMT 4: full intra request (RFC 5104 section 4.3.1).
    public static let firFormat: UInt8 = 4
    /// PSFB FMT 15: application layer feedback, used by REMB (draft-alvestrand-rmcat-remb section 2.2).
    public static let applicationLayerFeedbackFormat: UInt8 = 15
}
