/// What a paced packet is; retransmissions go out ahead of new media (libwebrtc `RtpPacketMediaType` priorities).
public enum PacedPacketKind: Hashable, Sendable {
    /// A retransmission (RTX or on the media SSRC) answering a NACK.
    case retransmission
    /// A new media packet.
    case media
    /// A FlexFEC packet (`FlexFECEncoder`) over media that left: queued with the media, in order, as libwebrtc's pacer
    /// sends FEC at video priority. Its `sequenceNumber` is the FEC stream's.
    case forwardErrorCorrection
    /// Padding for a bandwidth probe (`ProbeController`): a recent media packet sent again, ahead of new media.
    case probe
}
