/// One TMMBR or TMMBN FCI entry (RFC 5104 sections 4.2.1.1 and 4.2.2.1):
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                              SSRC                             |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// | MxTBR Exp |  MxTBR Mantissa                 |Measured Overhead|
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
public struct TemporaryMaximumBitrateEntry: Hashable, Sendable {
    /// Bits of the mantissa field (RFC 5104 section 4.2.1.1).
    static let mantissaBits = 17
    /// The largest measured overhead (nine bits).
    public static let maxOverhead: UInt16 = 0x1FF

    /// The media stream the limit applies to.
    public var ssrc: SSRC
    /// The maximum total media bitrate, bits per second (as encoded, i.e. rounded down to what the
    /// exponent/mantissa form can hold).
    public var bitrate: UInt64
    /// The measured per-packet overhead in bytes (IP/UDP/RTP headers), 0...511.
    public var overhead: UInt16

    /// Creates an entry; the bitrate is rounded down to the nearest encodable value.
    /// - Parameters:
    ///   - ssrc: the stream.
    ///   - bitrate: bits per second.
    ///   - overhead: per-packet overhead in bytes (clamped to 511).
    public init(ssrc: SSRC, bitrate: UInt64, overhead: UInt16) {
        self.ssrc = ssrc
        let (e, m) = ExponentialBitrate.encode(bitrate, mantissaBits: Self.mantissaBits)
        self.bitrate = ExponentialBitrate.decode(exponent: e, mantissa: m)
        self.overhead = min(overhead, Self.maxOverhead)
    }

    init(reader r: ByteReader, at o: Int) {
        let word = r.u32(o + 4)
        self.ssrc = SSRC(r.u32(o))
        self.bitrate = ExponentialBitrate.decode(exponent: UInt8(word >> 26), mantissa: (word >> 9) & 0x1_FFFF)
        self.overhead = UInt16(word & 0x1FF)
    }

    func write(to w: inout ByteWriter) {
        let (e, m) = ExponentialBitrate.encode(bitrate, mantissaBits: Self.mantissaBits)
        w.u32(ssrc.rawValue)
        w.u32(UInt32(e) << 26 | m << 9 | UInt32(min(overhead, Self.maxOverhead)))
    }
}
