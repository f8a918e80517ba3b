/// The exponent/mantissa encoding of a bitrate used by TMMBR/TMMBN (RFC 5104 section 4.2.1.1: 6-bit exponent,
/// 17-bit mantissa) and REMB (draft-alvestrand-rmcat-remb section 2.2: 6-bit exponent, 18-bit mantissa):
/// bitrate = mantissa * 2^exponent bits per second.
enum ExponentialBitrate {
    /// Encodes `bitrate` with the smallest exponent whose mantissa fits, rounding down (as libwebrtc does).
    /// - Parameters:
    ///   - bitrate: bits per second.
    ///   - mantissaBits: 17 (TMMBR) or 18 (REMB).
    /// - Returns: the exponent (0...63) and mantissa.
    static func encode(_ bitrate: UInt64, mantissaBits: Int) -> (exponent: UInt8, mantissa: UInt32) {
        let maxMantissa = (UInt64(1) << mantissaBits) - 1
        var exponent = 0
        while exponent < 63, bitrate >> exponent > maxMantissa { exponent += 1 }
        return (UInt8(exponent), UInt32(min(bitrate >> exponent, maxMantissa)))
    }

    /// Decodes a bitrate, saturating at `UInt64.max`.
    /// - Parameters:
    ///   - exponent: 0...63.
    ///   - mantissa: the mantissa.
    static func decode(exponent: UInt8, mantissa: UInt32) -> UInt64 {
        let m = UInt64(mantissa)
        guard m != 0 else { return 0 }
        let e = Int(exponent)
        return m.leadingZeroBitCount > e ? m << e : .max
    }
}
