import MediaTime

/// The absolute capture time header extension (`abs-capture-time`,
/// http://www.webrtc.org/experiments/rtp-hdrext/abs-capture-time): when the frame a packet belongs to was captured,
/// on the sender's wall clock, as a 64-bit NTP timestamp (UQ32.32, RFC 5905 section 6), optionally followed by the
/// sender's estimate of the offset between its capture clock and its own clock (Q32.32, two's complement).
///
/// ```
/// short form (8 bytes)                          long form (16 bytes)
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |  ID   | len=7 |     absolute capture timestamp (bit 0-23)     |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |             absolute capture timestamp (bit 24-55)            |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |  ... (56-63)  |   (long form, len=15: the estimated capture clock offset, 64 bits, follows)
/// +-+-+-+-+-+-+-+-+
/// ```
///
/// We send the short form (our capture clock is the clock our Sender Reports use, so the offset is zero and the
/// receiver loses nothing) and read both.
public struct AbsoluteCaptureTime: Hashable, Sendable {
    /// The extension's URI for `a=extmap`.
    public static let uri = "http://www.webrtc.org/experiments/rtp-hdrext/abs-capture-time"
    /// Bytes of the short form's data: the timestamp alone.
    public static let shortSize = 8
    /// Bytes of the long form's data: the timestamp and the estimated capture clock offset.
    public static let longSize = 16

    /// The capture time on the sender's wall clock (NTP format, UQ32.32).
    public var captureTimestamp: NTPTimestamp
    /// The sender's estimate of (its clock - the capture clock), Q32.32 seconds; nil in the short form.
    public var estimatedCaptureClockOffset: Int64?

    /// Creates a value.
    /// - Parameters:
    ///   - captureTimestamp: the capture time, NTP format.
    ///   - estimatedCaptureClockOffset: the capture clock's offset (Q32.32 seconds), or nil for the short form.
    public init(captureTimestamp: NTPTimestamp, estimatedCaptureClockOffset: Int64? = nil) {
        self.captureTimestamp = captureTimestamp
        self.estimatedCaptureClockOffset = estimatedCaptureClockOffset
    }

    /// Bytes of this value's element data: 8, or 16 with the offset.
    public var size: Int { estimatedCaptureClockOffset == nil ? Self.shortSize : Self.longSize }

    /// Decodes an element's data: 8 bytes (short form) or 16 (long form); nil for any other length.
    /// - Parameter data: the element's data.
    public init?(data: UnsafeRawBufferPointer) {
        guard data.count == Self.shortSize || data.count == Self.longSize else { return nil }
        let r = ByteReader(buffer: data)
        captureTimestamp = NTPTimestamp(rawValue: UInt64(r.u32(0)) << 32 | UInt64(r.u32(4)))
        estimatedCaptureClockOffset = data.count == Self.longSize
            ? Int64(bitPattern: UInt64(r.u32(8)) << 32 | UInt64(r.u32(12))) : nil
    }

    /// The element carrying this value, for building a header extension block.
    /// - Parameter id: the negotiated local identifier (1...14 in the one-byte form).
    /// - Returns: the element.
    public func element(id: UInt8) -> RTPHeaderExtensionElement {
        var data = [UInt8](repeating: 0, count: size)
        data.withUnsafeMutableBytes { raw in
            var w = ByteWriter(raw)
            write(to: &w)
        }
        return RTPHeaderExtensionElement(id: id, data: data)
    }

    /// Writes the element's data (the timestamp, then the offset when present), big-endian.
    @inline(__always)
    func write(to w: inout ByteWriter) {
        w.u32(captureTimestamp.seconds)
        w.u32(captureTimestamp.fraction)
        if let offset = estimatedCaptureClockOffset {
            let bits = UInt64(bitPattern: offset)
            w.u32(UInt32(truncatingIfNeeded: bits >> 32))
            w.u32(UInt32(truncatingIfNeeded: bits))
        }
    }

    /// The capture time of the frame with RTP timestamp `other`, inferred from a known pair (libwebrtc's
    /// `AbsoluteCaptureTimeInterpolator::InterpolateAbsoluteCaptureTimestamp`): the RTP distance, signed (32-bit
    /// wrap), at the clock rate, added in UQ32.32. Wraps as both clocks do; never traps.
    /// - Parameters:
    ///   - value: the known capture time.
    ///   - timestamp: its RTP timestamp.
    ///   - other: the RTP timestamp to infer for.
    ///   - clockRate: the RTP clock rate (positive; 90 kHz for video).
    /// - Returns: the inferred capture time.
    public static func interpolate(
        _ value: NTPTimestamp, from timestamp: RTPTimestamp, to other: RTPTimestamp, clockRate: Int64 = RTPClock.rate
    ) -> NTPTimestamp {
        let rate = max(clockRate, 1)
        let ticks = Int64(Int32(bitPattern: other.rawValue &- timestamp.rawValue))
        // |ticks| <= 2^31: whole seconds < 2^31, the remainder's fraction < 2^32 x rate; with rate < 2^31 no
        // product overflows.
        let seconds = ticks / rate
        let remainder = ticks % rate
        let fraction = rate < (1 << 31) ? (remainder << 32) / rate : Int64((Double(remainder) * 4_294_967_296 / Double(rate)))
        let delta = (seconds &<< 32) &+ fraction
        return NTPTimestamp(rawValue: value.rawValue &+ UInt64(bitPattern: delta))
    }

    /// Reads the value from a whole RTP packet without copying.
    /// - Parameters:
    ///   - packet: the RTP packet (unprotected).
    ///   - id: the negotiated local identifier.
    /// - Returns: the value, or nil when the packet has no such element or its length is neither 8 nor 16.
    /// - Throws: `RTPError` when the packet or its extension block is malformed.
    public static func read(from packet: UnsafeRawBufferPointer, id: UInt8) throws(RTPError) -> AbsoluteCaptureTime? {
        let layout = try RTPPacketLayout(packet)
        guard let range = try layout.extensionElement(id: id, in: packet) else { return nil }
        return AbsoluteCaptureTime(data: UnsafeRawBufferPointer(rebasing: packet[range]))
    }
}
