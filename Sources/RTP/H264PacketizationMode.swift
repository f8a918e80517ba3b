/// The RFC 6184 `packetization-mode` SDP parameter (section 6.2, 8.1).
public enum H264PacketizationMode: Int, Hashable, Sendable, CaseIterable {
    /// Mode 0: single NAL unit packets only (section 6.2).
    case singleNALUnit = 0
    /// Mode 1: single NAL unit, STAP-A and FU-A packets, transmitted in decoding order (section 6.3).
    case nonInterleaved = 1
}
