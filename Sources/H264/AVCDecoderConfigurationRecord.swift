/// The `avcC` box payload of MP4/Matroska (ISO/IEC 14496-15 5.3.3.1, "AVCDecoderConfigurationRecord"):
///
/// ```
/// configurationVersion = 1                      8 bits
/// AVCProfileIndication                          8   (profile_idc)
/// profile_compatibility                         8   (constraint flags)
/// AVCLevelIndication                            8   (level_idc)
/// '111111'b reserved, lengthSizeMinusOne        6 + 2
/// '111'b reserved, numOfSequenceParameterSets   3 + 5
///   { sequenceParameterSetLength 16, NAL unit }
/// numOfPictureParameterSets                     8
///   { pictureParameterSetLength 16, NAL unit }
/// if AVCProfileIndication is 100, 110, 122 or 144:
///   '111111'b, chroma_format                    6 + 2
///   '11111'b, bit_depth_luma_minus8             5 + 3
///   '11111'b, bit_depth_chroma_minus8           5 + 3
///   numOfSequenceParameterSetExt                8
///     { sequenceParameterSetExtLength 16, NAL unit }
/// ```
public struct AVCDecoderConfigurationRecord: Hashable, Sendable {
    /// `configurationVersion`: always 1.
    public static let configurationVersion: UInt8 = 1
    /// The `AVCProfileIndication` values after which the chroma/bit-depth extension follows (14496-15 5.3.3.1.1).
    public static let extendedProfileIndications: Set<UInt8> = [100, 110, 122, 144]
    /// `numOfSequenceParameterSets` is a 5-bit field.
    public static let maxSequenceParameterSets = 31
    /// `numOfPictureParameterSets` and `numOfSequenceParameterSetExt` are 8-bit fields.
    public static let maxPictureParameterSets = 255
    /// Parameter set lengths are 16-bit fields.
    public static let maxParameterSetLength = 0xFFFF

    /// `AVCProfileIndication` (`profile_idc` of the SPS).
    public let profileIndication: UInt8
    /// `profile_compatibility` (the SPS constraint-flag byte).
    public let profileCompatibility: UInt8
    /// `AVCLevelIndication` (`level_idc`).
    public let levelIndication: UInt8
    /// `lengthSizeMinusOne + 1`: 1, 2 or 4.
    public let lengthSize: Int
    /// The SPS NAL units, header byte included.
    public let sequenceParameterSets: [[UInt8]]
    /// The PPS NAL units, header byte included.
    public let pictureParameterSets: [[UInt8]]
    /// The extension written for High profiles (`AVCProfileIndication` 100, 110, 122, 144); nil if absent.
    public let chromaExtension: ChromaExtension?

    /// Builds a record from parameter sets; profile, compatibility, level, chroma format and bit depths are taken
    /// from the first SPS, and the extension is written when its profile calls for it.
    /// - Parameters:
    ///   - sequenceParameterSets: SPS NAL units (at least one), header byte included.
    ///   - pictureParameterSets: PPS NAL units.
    ///   - lengthSize: the NAL length field size of the samples, 1, 2 or 4 (default 4).
    ///   - sequenceParameterSetExtensions: SPS extension NAL units (type 13), for the High-profile extension.
    /// - Throws: ``H264Error/missingSequenceParameterSet``, ``H264Error/unsupportedLengthSize(_:)``,
    ///   ``H264Error/tooManyParameterSets(count:limit:)``, ``H264Error/parameterSetLengthNotRepresentable(length:)``,
    ///   and SPS parse errors.
    public init(
        sequenceParameterSets: [[UInt8]], pictureParameterSets: [[UInt8]], lengthSize: Int = 4,
        sequenceParameterSetExtensions: [[UInt8]] = []
    ) throws(H264Error) {
        guard let first = sequenceParameterSets.first else { throw .missingSequenceParameterSet }
        let sps = try SequenceParameterSet(nalUnit: first)
        var extensionFields: ChromaExtension? = nil
        if Self.extendedProfileIndications.contains(sps.profileIdc) {
            extensionFields = ChromaExtension(
                chromaFormat: UInt8(sps.chromaFormatIdc), bitDepthLumaMinus8: UInt8(sps.bitDepthLuma - 8),
                bitDepthChromaMinus8: UInt8(sps.bitDepthChroma - 8),
                sequenceParameterSetExtensions: sequenceParameterSetExtensions)
        }
        try self.init(
            profileIndication: sps.profileIdc, profileCompatibility: sps.constraintFlags, levelIndication: sps.levelIdc,
            lengthSize: lengthSize, sequenceParameterSets: sequenceParameterSets,
            pictureParameterSets: pictureParameterSets, chromaExtension: extensionFields)
    }

    /// Creates a record from its fields, checking that it can be serialized.
    /// - Parameters:
    ///   - profileIndication: `AVCProfileIndication`.
    ///   - profileCompatibility: `profile_compatibility`.
    ///   - levelIndication: `AVCLevelIndication`.
    ///   - lengthSize: 1, 2 or 4.
    ///   - sequenceParameterSets: SPS NAL units (at most 31, each 1...65535 bytes).
    ///   - pictureParameterSets: PPS NAL units (at most 255, each 1...65535 bytes).
    ///   - chromaExtension: the High-profile extension, or nil.
    /// - Throws: ``H264Error/unsupportedLengthSize(_:)``, ``H264Error/tooManyParameterSets(count:limit:)``,
    ///   ``H264Error/parameterSetLengthNotRepresentable(length:)``.
    public init(
        profileIndication: UInt8, profileCompatibility: UInt8, levelIndication: UInt8, lengthSize: Int,
        sequenceParameterSets: [[UInt8]], pictureParameterSets: [[UInt8]], chromaExtension: ChromaExtension?
    ) throws(H264Error) {
        guard AVCC.supportedLengthSizes.contains(lengthSize) else { throw .unsupportedLengthSize(lengthSize) }
        try Self.check(sequenceParameterSets, limit: Self.maxSequenceParameterSets)
        try Self.check(pictureParameterSets, limit: Self.maxPictureParameterSets)
        if let chromaExtension {
            try Self.check(chromaExtension.sequenceParameterSetExtensions, limit: Self.maxPictureParameterSets)
        }
        self.profileIndication = profileIndication
        self.profileCompatibility = profileCompatibility
        self.levelIndication = levelIndication
        self.lengthSize = lengthSize
        self.sequenceParameterSets = sequenceParameterSets
        self.pictureParameterSets = pictureParameterSets
        self.chromaExtension = chromaExtension
    }

    private static func check(_ sets: [[UInt8]], limit: Int) throws(H264Error) {
        guard sets.count <= limit else { throw .tooManyParameterSets(count: sets.count, limit: limit) }
        for set in sets where set.isEmpty || set.count > maxParameterSetLength {
            throw .parameterSetLengthNotRepresentable(length: set.count)
        }
    }
}
