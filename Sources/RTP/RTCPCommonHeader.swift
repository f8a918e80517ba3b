/// The header every RTCP packet starts with (RFC 3550 section 6.4.1; RFC 4585 section 6.1 names the count FMT):
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |V=2|P|  RC/FMT |      PT       |  length (32-bit words - 1)    |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
enum RTCPCommonHeader {
    /// Bytes of the common header.
    static let size = 4
    /// RTCP version (RFC 3550 section 6.4.1).
    static let version: UInt8 = 2
    /// The largest value of the five-bit count field.
    static let maxCount = 31
    /// The largest packet the 16-bit length field (32-bit words minus one) can describe.
    static let maxPacketSize = 4 * 65_536

    /// Writes the header of a packet of `size` bytes (a multiple of 4).
    static func write(to w: inout ByteWriter, count: UInt8, packetType: UInt8, size: Int) {
        w.u8(version << 6 | (count & 0x1F))
        w.u8(packetType)
        w.u16(UInt16(size / 4 - 1))
    }
}
