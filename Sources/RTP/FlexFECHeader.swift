/// The FlexFEC header as libwebrtc and Chromium write and read it (`flexfec-03`, draft-ietf-payload-flexible-fec-
/// scheme-03 with one protected SSRC; libwebrtc `Flexfec03HeaderWriter`/`Reader`): the RTP payload of a FEC packet
/// starts with it, then the XOR of the protected packets' bytes after their fixed 12-byte headers.
///
/// ```
///  0 |R|F|P|X|  CC   |M| PT recovery |        length recovery        |
///  4 |                          TS recovery                          |
///  8 |   SSRCCount   |                 reserved (0)                  |
/// 12 |                             SSRC_i                            |
/// 16 |           SN base_i           |k|          Mask [0-14]        |
/// 20 |k|                   Mask [15-45] (optional)                   |
/// 24 |k|                  Mask [46-108] (optional, 8 bytes)          |
/// ```
/// A set k bit ends the mask (draft-03's meaning; RFC 8627 reverses it), so the header is 20, 24 or 32 bytes. Mask
/// bit i protects the media packet `SN base + i`. R and F are 0 and SSRCCount is 1; the recovery fields (bytes 0-7)
/// are the XOR of the protected packets' first 8 bytes with their length (less 12) in place of their sequence number.
public struct FlexFECHeader: Hashable, Sendable {
    /// The most media packets one FEC packet can protect: the mask's 109 bits.
    public static let maximumMaskBits = 109
    /// The header size with the longest mask.
    public static let maximumSize = 32
    /// The header size with the shortest mask (offsets 0-14).
    public static let minimumSize = 20

    /// The protected media stream.
    public var protectedSSRC: SSRC
    /// The sequence number mask bit 0 stands for.
    public var sequenceNumberBase: SequenceNumber
    /// Mask bits 0-63: bit i set protects `sequenceNumberBase + i`.
    public var maskLow: UInt64
    /// Mask bits 64-108: bit i set protects `sequenceNumberBase + 64 + i`.
    public var maskHigh: UInt64

    /// Creates a header.
    /// - Parameters:
    ///   - protectedSSRC: the protected media SSRC.
    ///   - sequenceNumberBase: the sequence number of mask bit 0.
    ///   - maskLow: mask bits 0-63.
    ///   - maskHigh: mask bits 64-108 (higher bits are dropped).
    public init(protectedSSRC: SSRC, sequenceNumberBase: SequenceNumber, maskLow: UInt64, maskHigh: UInt64 = 0) {
        self.protectedSSRC = protectedSSRC
        self.sequenceNumberBase = sequenceNumberBase
        self.maskLow = maskLow
        self.maskHigh = maskHigh & ((1 << 45) - 1)
    }

    /// Whether mask bit `offset` (0-108) is set.
    public func protects(offset: Int) -> Bool {
        switch offset {
        case 0..<64: return maskLow >> UInt64(offset) & 1 == 1
        case 64..<Self.maximumMaskBits: return maskHigh >> UInt64(offset - 64) & 1 == 1
        default: return false
        }
    }

    /// How many packets the mask protects.
    public var protectedCount: Int { maskLow.nonzeroBitCount + maskHigh.nonzeroBitCount }

    /// The highest set offset, or nil for an empty mask.
    public var highestOffset: Int? {
        if maskHigh != 0 { return 64 + 63 - maskHigh.leadingZeroBitCount }
        if maskLow != 0 { return 63 - maskLow.leadingZeroBitCount }
        return nil
    }

    /// The header's size on the wire: 20 bytes while the mask ends by offset 14, 24 by offset 45, else 32.
    public var size: Int {
        switch highestOffset ?? 0 {
        case ...14: return 20
        case ...45: return 24
        default: return 32
        }
    }

    /// Reads the header at the start of a FEC packet's RTP payload.
    /// - Parameter payload: the RTP payload (after the RTP header and its extensions, before any padding).
    /// - Throws: `FlexFECError` when the payload is shorter than its header, R or F is set, the SSRC count is not 1,
    ///   no k bit ends the mask or the mask is empty.
    public init(parsing payload: UnsafeRawBufferPointer) throws(FlexFECError) {
        guard payload.count >= Self.minimumSize else {
            throw .truncated(needed: Self.minimumSize, available: payload.count)
        }
        guard payload[0] & 0xC0 == 0 else { throw .unsupportedFlags(payload[0] >> 6) }
        guard payload[8] == 1 else { throw .unsupportedSSRCCount(Int(payload[8])) }
        let reader = ByteReader(buffer: payload)
        protectedSSRC = SSRC(reader.u32(12))
        sequenceNumberBase = SequenceNumber(reader.u16(16))
        let word0 = UInt64(reader.u16(18))
        var low: UInt64 = 0
        var high: UInt64 = 0
        // Offsets 0-14: bits 14...0 of the first word.
        for offset in 0..<15 where word0 >> UInt64(14 - offset) & 1 == 1 { low |= 1 << UInt64(offset) }
        if word0 & 0x8000 == 0 {
            guard payload.count >= 24 else { throw .truncated(needed: 24, available: payload.count) }
            let word1 = UInt64(reader.u32(20))
            // Offsets 15-45: bits 30...0 of the second word.
            for bit in 0..<31 where word1 >> UInt64(30 - bit) & 1 == 1 { low |= 1 << UInt64(15 + bit) }
            if word1 & 0x8000_0000 == 0 {
                guard payload.count >= 32 else { throw .truncated(needed: 32, available: payload.count) }
                let word2 = UInt64(reader.u32(24)) << 32 | UInt64(reader.u32(28))
                guard word2 >> 63 == 1 else { throw .unterminatedMask }
                // Offsets 46-108: bits 62...0 of the third word.
                for bit in 0..<63 where word2 >> UInt64(62 - bit) & 1 == 1 {
                    let offset = 46 + bit
                    if offset < 64 { low |= 1 << UInt64(offset) } else { high |= 1 << UInt64(offset - 64) }
                }
            }
        }
        maskLow = low
        maskHigh = high
        guard low != 0 || high != 0 else { throw .emptyMask }
    }

    /// Writes bytes 8 to `size` (SSRC count, SSRC, base, mask with its k bits) and clears R and F in byte 0; the
    /// recovery fields (bytes 0-7 but R and F) are the caller's XOR.
    /// - Parameter buffer: at least `size` bytes.
    /// - Throws: `FlexFECError.truncated` when the buffer is shorter than `size`.
    public func write(into buffer: UnsafeMutableRawBufferPointer) throws(FlexFECError) {
        let size = self.size
        guard buffer.count >= size else { throw .truncated(needed: size, available: buffer.count) }
        buffer[0] &= 0x3F
        var writer = ByteWriter(buffer, offset: 8)
        writer.u32(1 << 24)  // SSRCCount 1, reserved 0
        writer.u32(protectedSSRC.rawValue)
        writer.u16(sequenceNumberBase.rawValue)
        var word0: UInt16 = size == 20 ? 0x8000 : 0
        for offset in 0..<15 where protects(offset: offset) { word0 |= 1 << UInt16(14 - offset) }
        writer.u16(word0)
        guard size > 20 else { return }
        var word1: UInt32 = size == 24 ? 0x8000_0000 : 0
        for bit in 0..<31 where protects(offset: 15 + bit) { word1 |= 1 << UInt32(30 - bit) }
        writer.u32(word1)
        guard size > 24 else { return }
        var word2: UInt64 = 1 << 63
        for bit in 0..<63 where protects(offset: 46 + bit) { word2 |= 1 << UInt64(62 - bit) }
        writer.u32(UInt32(truncatingIfNeeded: word2 >> 32))
        writer.u32(UInt32(truncatingIfNeeded: word2))
    }
}

/// Why a FlexFEC packet was not read or used.
public enum FlexFECError: Error, Hashable, Sendable {
    /// The payload is shorter than its header (or than the header its k bits announce).
    case truncated(needed: Int, available: Int)
    /// R or F is set (retransmission or flexible-mask variants, which libwebrtc neither writes nor reads).
    case unsupportedFlags(UInt8)
    /// The header protects more or fewer than one SSRC.
    case unsupportedSSRCCount(Int)
    /// No k bit ends the mask within 32 bytes.
    case unterminatedMask
    /// The mask protects no packet.
    case emptyMask
    /// The protected SSRC is not the stream's.
    case unknownProtectedSSRC(SSRC)
    /// The recovered bytes do not make an RTP packet of the protected stream (a length recovery past the FEC
    /// payload, or a header that does not parse).
    case invalidRecoveredPacket
    /// The batch cannot take the packet: not the next sequence number, too large, or already holding
    /// `FlexFECEncoder.maximumMediaPackets`.
    case batchRefused
}
