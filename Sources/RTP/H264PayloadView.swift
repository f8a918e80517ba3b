import H264

/// One H.264 RTP payload (RFC 6184 section 5.4) decoded into ranges of the caller's bytes, without copying.
///
/// Ranges are in the index space of the parsed slice. Only the structures allowed in packetization modes 0 and 1
/// are accepted; everything else is a specific `H264PayloadError`.
public enum H264PayloadView: Hashable, Sendable {
    /// A single NAL unit packet (types 1-23): the whole payload is one NAL unit.
    case single(Range<Int>)
    /// A STAP-A: the aggregated NAL units, each range starting at its NAL header.
    case stapA([Range<Int>])
    /// A FU-A fragment: the indicator byte, the FU header byte and the fragment data after them.
    case fuA(indicator: UInt8, header: UInt8, data: Range<Int>)

    /// The NAL unit types a single NAL unit packet, an aggregated unit or a fragmented unit may have (RFC 6184
    /// Table 1: 1-23 are NAL units; 0 and 30-31 are reserved, 24-29 are payload structures).
    static let nalUnitTypes: ClosedRange<UInt8> = 1...23

    /// Decodes a payload.
    /// - Parameter payload: the RTP payload (padding already removed), e.g. `packet[view.payloadRange]`.
    /// - Throws: `H264PayloadError` naming the malformation.
    public init(parsing payload: ArraySlice<UInt8>) throws(H264PayloadError) {
        guard let first = payload.first else { throw .emptyPayload }
        guard first & H264PayloadHeader.forbiddenMask == 0 else { throw .forbiddenBitSet }
        let start = payload.startIndex
        let end = payload.endIndex
        let type = first & H264PayloadHeader.typeMask
        switch type {
        case Self.nalUnitTypes:
            self = .single(start..<end)
        case NALUnitType.stapA.rawValue:
            var ranges: [Range<Int>] = []
            var i = start + H264Payloader.stapAHeaderSize
            guard i < end else { throw .stapAEmpty }
            while i < end {
                guard i + H264Payloader.stapASizeFieldSize <= end else { throw .stapATruncatedSize(offset: i - start) }
                let size = Int(payload[i]) << 8 | Int(payload[i + 1])
                guard size > 0 else { throw .stapAZeroLength(offset: i - start) }
                let nalStart = i + H264Payloader.stapASizeFieldSize
                guard nalStart + size <= end else {
                    throw .stapALengthOverrun(offset: i - start, size: size, available: end - nalStart)
                }
                let nalType = payload[nalStart] & H264PayloadHeader.typeMask
                guard Self.nalUnitTypes.contains(nalType) else {
                    throw .stapAInvalidNALUnitType(offset: nalStart - start, type: nalType)
                }
                ranges.append(nalStart..<(nalStart + size))
                i = nalStart + size
            }
            self = .stapA(ranges)
        case NALUnitType.fuA.rawValue:
            guard payload.count > H264Payloader.fuAHeaderSize else { throw .fuATooShort(count: payload.count) }
            let header = payload[start + 1]
            guard header & (H264PayloadHeader.fuStartBit | H264PayloadHeader.fuEndBit)
                != (H264PayloadHeader.fuStartBit | H264PayloadHeader.fuEndBit)
            else { throw .fuAStartAndEnd }
            let nalType = header & H264PayloadHeader.typeMask
            guard Self.nalUnitTypes.contains(nalType) else { throw .fuAInvalidNALUnitType(nalType) }
            self = .fuA(indicator: first, header: header, data: (start + H264Payloader.fuAHeaderSize)..<end)
        case NALUnitType.stapB.rawValue, NALUnitType.mtap16.rawValue, NALUnitType.mtap24.rawValue,
            NALUnitType.fuB.rawValue:
            throw .notAllowedInNonInterleavedMode(type)
        default:
            throw .reservedNALUnitType(type)
        }
    }

    /// For a FU-A: whether the S bit is set.
    public var isFragmentStart: Bool {
        if case .fuA(_, let header, _) = self { return header & H264PayloadHeader.fuStartBit != 0 }
        return false
    }

    /// For a FU-A: whether the E bit is set.
    public var isFragmentEnd: Bool {
        if case .fuA(_, let header, _) = self { return header & H264PayloadHeader.fuEndBit != 0 }
        return false
    }

    /// For a FU-A: the NAL header of the fragmented unit, rebuilt from the indicator's F and NRI and the FU
    /// header's type (RFC 6184 section 5.8).
    public var reconstructedNALHeader: UInt8? {
        if case .fuA(let indicator, let header, _) = self {
            return indicator & (H264PayloadHeader.forbiddenMask | H264PayloadHeader.nriMask)
                | header & H264PayloadHeader.typeMask
        }
        return nil
    }
}
