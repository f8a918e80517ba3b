extension EncodedFrame {
    /// Creates a frame by writing NAL units as Annex-B with 4-byte start codes; `isKeyframe` is derived from the
    /// presence of an IDR slice.
    /// - Parameters:
    ///   - nalUnits: the NAL units, header byte first.
    ///   - timestamp: 90 kHz presentation time.
    public init<S: Collection>(nalUnits: [S], timestamp: Int64) where S.Element == UInt8 {
        var bytes: [UInt8] = []
        var locations: [NALUnitLocation] = []
        bytes.reserveCapacity(nalUnits.reduce(0) { $0 + $1.count + AnnexB.startCode.count })
        for nal in nalUnits where !nal.isEmpty {
            AnnexB.append(nal, to: &bytes)
            let offset = bytes.count - nal.count
            locations.append(NALUnitLocation(offset: offset, length: nal.count, header: NALUnitHeader(byte: bytes[offset])))
        }
        self.init(
            bytes: bytes, nalUnits: locations, isKeyframe: locations.contains { $0.type == .idrSlice },
            timestamp: timestamp)
    }

    /// The SPS NAL units of the frame, as slices of ``bytes``.
    public var sequenceParameterSets: [ArraySlice<UInt8>] {
        nalUnits.filter { $0.type == .sps }.map { bytes[$0.range] }
    }

    /// The PPS NAL units of the frame, as slices of ``bytes``.
    public var pictureParameterSets: [ArraySlice<UInt8>] {
        nalUnits.filter { $0.type == .pps }.map { bytes[$0.range] }
    }

    /// The SPS and PPS NAL units of the frame in stream order (what an IDR carries ahead of its slices), as slices.
    public var parameterSets: [ArraySlice<UInt8>] {
        nalUnits.filter { $0.type == .sps || $0.type == .pps }.map { bytes[$0.range] }
    }
}
