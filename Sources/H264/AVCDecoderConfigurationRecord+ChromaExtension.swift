extension AVCDecoderConfigurationRecord {
    /// The fields an `avcC` record carries after the PPS list for High profiles (ISO/IEC 14496-15 5.3.3.1.2).
    public struct ChromaExtension: Hashable, Sendable {
        /// `chroma_format` (the SPS `chroma_format_idc`, 0...3).
        public var chromaFormat: UInt8
        /// `bit_depth_luma_minus8` (0...7 in the 3-bit field).
        public var bitDepthLumaMinus8: UInt8
        /// `bit_depth_chroma_minus8` (0...7).
        public var bitDepthChromaMinus8: UInt8
        /// The SPS extension NAL units (type 13), header byte included.
        public var sequenceParameterSetExtensions: [[UInt8]]

        /// Creates the extension fields.
        /// - Parameters:
        ///   - chromaFormat: `chroma_format` (low 2 bits are written).
        ///   - bitDepthLumaMinus8: `bit_depth_luma_minus8` (low 3 bits are written).
        ///   - bitDepthChromaMinus8: `bit_depth_chroma_minus8` (low 3 bits are written).
        ///   - sequenceParameterSetExtensions: SPS extension NAL units.
        public init(
            chromaFormat: UInt8, bitDepthLumaMinus8: UInt8, bitDepthChromaMinus8: UInt8,
            sequenceParameterSetExtensions: [[UInt8]] = []
        ) {
            self.chromaFormat = chromaFormat
            self.bitDepthLumaMinus8 = bitDepthLumaMinus8
            self.bitDepthChromaMinus8 = bitDepthChromaMinus8
            self.sequenceParameterSetExtensions = sequenceParameterSetExtensions
        }
    }
}
