/// The first fields of a slice header (H.264 7.3.3): enough to find access-unit boundaries and the PPS in use
/// without SPS/PPS context.
public struct SliceHeader: Hashable, Sendable {
    /// `first_mb_in_slice`: 0 for the first slice of a picture (in decoding order, without ASO).
    public var firstMbInSlice: Int
    /// `slice_type` (0...9; 5...9 mean every slice of the picture has type `slice_type - 5`).
    public var sliceType: Int
    /// `pic_parameter_set_id` (0...255).
    public var picParameterSetID: Int

    /// The escaped payload bytes read at most: three `ue(v)` of up to 63 bits each, plus room for emulation
    /// prevention bytes.
    static let prefixLimit = 32

    /// Parses the start of a slice NAL unit (types 1, 2, 5; a data partition A also starts with a slice header).
    /// - Parameter nalUnit: the NAL unit, header byte first.
    /// - Throws: ``H264Error/unexpectedNALUnitType(offset:expected:found:)`` for other types,
    ///   ``H264Error/forbiddenZeroBit(offset:)``, ``H264Error/endOfData(offset:)``,
    ///   ``H264Error/expGolombTooLong(offset:)``, ``H264Error/valueOutOfRange(offset:field:value:)``.
    public init<S: Collection>(nalUnit: S) throws(H264Error) where S.Element == UInt8 {
        self = try BitReader.parsing(
            nalUnit: nalUnit, as: [.nonIDRSlice, .idrSlice, .slicePartitionA], payloadLimit: Self.prefixLimit
        ) { (reader: inout BitReader) throws(H264Error) in
            let firstMb = Int(try reader.ue())
            let sliceType = try reader.ue("slice_type", in: 0...9)
            let pps = try reader.ue("pic_parameter_set_id", in: 0...PictureParameterSet.maxID)
            return SliceHeader(firstMbInSlice: firstMb, sliceType: sliceType, picParameterSetID: pps)
        }
    }

    /// Creates a header from its fields.
    /// - Parameters:
    ///   - firstMbInSlice: `first_mb_in_slice`.
    ///   - sliceType: `slice_type`.
    ///   - picParameterSetID: `pic_parameter_set_id`.
    public init(firstMbInSlice: Int, sliceType: Int, picParameterSetID: Int) {
        self.firstMbInSlice = firstMbInSlice
        self.sliceType = sliceType
        self.picParameterSetID = picParameterSetID
    }
}
