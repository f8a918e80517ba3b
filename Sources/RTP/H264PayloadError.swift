/// Why an H.264 RTP payload (RFC 6184) could not be built or read. One case per malformation, so a receiver can
/// count them and tests can name the exact failure.
public enum H264PayloadError: Error, Hashable, Sendable {
    /// An RTP payload of zero bytes.
    case emptyPayload
    /// The NAL (or aggregation/fragment) header has the forbidden bit set (RFC 6184 section 5.3: "F ... MUST be
    /// zero"; a receiver may discard the unit).
    case forbiddenBitSet
    /// NAL unit type 0, 30 or 31: reserved/unspecified in RFC 6184 Table 1 and not usable as a payload.
    case reservedNALUnitType(UInt8)
    /// STAP-B, MTAP16, MTAP24 or FU-B: only allowed in interleaved mode (RFC 6184 Table 3), which this package
    /// does not negotiate.
    case notAllowedInNonInterleavedMode(UInt8)
    /// A STAP-A with nothing after its header byte.
    case stapAEmpty
    /// A STAP-A whose next 16-bit NAL size field is cut off.
    case stapATruncatedSize(offset: Int)
    /// A STAP-A NAL size field of zero.
    case stapAZeroLength(offset: Int)
    /// A NAL unit inside a STAP-A whose type is not 1...23 (nested aggregation or fragmentation units, or a
    /// reserved type).
    case stapAInvalidNALUnitType(offset: Int, type: UInt8)
    /// A STAP-A NAL size that runs past the payload.
    case stapALengthOverrun(offset: Int, size: Int, available: Int)
    /// A FU-A shorter than FU indicator + FU header + one byte (RFC 6184 section 5.8).
    case fuATooShort(count: Int)
    /// A FU-A whose FU header names a type that is not 1...23 (RFC 6184 section 5.8: the type of the fragmented
    /// NAL unit, which cannot itself be an aggregation or fragmentation unit).
    case fuAInvalidNALUnitType(UInt8)
    /// A FU-A with both the start and end bits set (RFC 6184 section 5.8: "MUST NOT both be set").
    case fuAStartAndEnd
    /// A FU-A middle or end fragment with no start fragment before it (it was lost, or never sent).
    case fuAContinuationWithoutStart
    /// A FU-A start fragment arrived while the previous fragmented NAL had not ended.
    case fuAMissingEnd
    /// In single-NAL-unit mode, a NAL unit larger than the payload limit (fragmentation needs mode 1).
    case nalUnitTooLarge(size: Int, limit: Int)
    /// A NAL unit of zero bytes in a frame to packetize.
    case emptyNALUnit(index: Int)
    /// A frame with no NAL units.
    case emptyAccessUnit
    /// A NAL unit whose location runs outside the frame's bytes (an `EncodedFrame` whose index does not match them).
    case nalUnitOutsideFrame(index: Int)
    /// A packet plan that does not fit the frame it is written from (another frame's plan, or one built by hand).
    case planDoesNotMatchFrame
    /// The buffer a packet is written into cannot hold it.
    case bufferTooSmall(needed: Int, available: Int)
    /// The configured MTU leaves fewer than 3 payload bytes (FU-A needs indicator + header + one byte).
    case payloadLimitTooSmall(Int)
    /// The configured MTU is above ``RTPPayloadLimit/maxMTU`` (65535: the IP total length field).
    case mtuTooLarge(Int)
    /// The RTP header size is below 12 bytes, or the SRTP trailer size is negative (or either is absurdly large).
    case invalidOverhead(rtpHeaderSize: Int, srtpTrailerSize: Int)
    /// Per-frame header extension IDs outside 1...14, equal to each other or to an element of the packetizer's fixed
    /// block, or given with a fixed block that is not one-byte form (RFC 8285 section 4.2).
    case invalidExtensionIDs
}
