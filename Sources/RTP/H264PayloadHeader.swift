/// Bit masks of the one-byte headers RFC 6184 puts at the start of every payload (NAL unit header, STAP-A header,
/// FU indicator) and of the FU header (section 5.8).
enum H264PayloadHeader {
    /// F, the forbidden zero bit (RFC 6184 section 5.3).
    static let forbiddenMask: UInt8 = 0x80
    /// NRI, `nal_ref_idc` (RFC 6184 section 5.3).
    static let nriMask: UInt8 = 0x60
    /// The five-bit type field.
    static let typeMask: UInt8 = 0x1F
    /// FU header S bit: first fragment (RFC 6184 section 5.8).
    static let fuStartBit: UInt8 = 0x80
    /// FU header E bit: last fragment (RFC 6184 section 5.8).
    static let fuEndBit: UInt8 = 0x40
    /// FU header R bit: reserved, sent as 0 and ignored by receivers (RFC 6184 section 5.8).
    static let fuReservedBit: UInt8 = 0x20
}
