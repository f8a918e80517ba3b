import Testing
import H264

@Suite struct AVCDecoderConfigurationRecordTests {
    /// avcC for the Constrained Baseline fixture: no High-profile extension.
    static let baselineRecord: [UInt8] = [
        0x01, 0x42, 0xC0, 0x0A, 0xFF, 0xE1,
        0x00, 0x17,
        0x67, 0x42, 0xC0, 0x0A, 0xDA, 0x08, 0x36, 0xC0, 0x44, 0x00, 0x00, 0x03, 0x00, 0x04, 0x00, 0x00, 0x03, 0x00,
        0xC8, 0x3C, 0x48, 0x9A, 0x80,
        0x01, 0x00, 0x05, 0x68, 0xCE, 0x02, 0x5C, 0x80,
    ]
    /// avcC for the High fixture, with 2-byte NAL lengths: chroma_format 1, 8-bit, no SPS extensions.
    static let highRecord: [UInt8] = [
        0x01, 0x64, 0x00, 0x0B, 0xFD, 0xE1,
        0x00, 0x18,
        0x67, 0x64, 0x00, 0x0B, 0xAC, 0xD9, 0x42, 0xC4, 0xEC, 0x04, 0x40, 0x00, 0x00, 0x03, 0x00, 0x40, 0x00, 0x00,
        0x0C, 0x83, 0xC5, 0x0A, 0x65, 0x80,
        0x01, 0x00, 0x05, 0x68, 0xEF, 0x82, 0x5C, 0xB0,
        0xFD, 0xF8, 0xF8, 0x00,
    ]
    /// avcC for the High 4:2:2 10-bit fixture, with one (made-up) SPS extension NAL unit.
    static let high422Record: [UInt8] = [
        0x01, 0x7A, 0x00, 0x15, 0xFF, 0xE1,
        0x00, 0x1A,
        0x67, 0x7A, 0x00, 0x15, 0xB6, 0xCD, 0x94, 0x2C, 0x8F, 0xCB, 0x80, 0x88, 0x00, 0x00, 0x03, 0x00, 0x08, 0x00,
        0x00, 0x03, 0x01, 0x90, 0xF8, 0xA1, 0x4C, 0xB0,
        0x01, 0x00, 0x15,
        0x68, 0xFE, 0x82, 0x5C, 0xF2, 0x49, 0x93, 0x93, 0x24, 0x86, 0x49, 0x32, 0x72, 0x64, 0x90, 0x84, 0x01, 0x0C,
        0x20, 0x08, 0x70,
        0xFE, 0xFA, 0xFA, 0x01, 0x00, 0x02, 0x6D, 0x80,
    ]

    @Test func buildsByteExactRecords() throws {
        let baseline = try AVCDecoderConfigurationRecord(
            sequenceParameterSets: [SequenceParameterSetTests.baselineSPS],
            pictureParameterSets: [PictureParameterSetTests.baselinePPS])
        #expect(baseline.bytes == Self.baselineRecord)
        #expect(baseline.serializedSize == Self.baselineRecord.count)
        #expect(baseline.chromaExtension == nil)

        let high = try AVCDecoderConfigurationRecord(
            sequenceParameterSets: [SequenceParameterSetTests.highSPS],
            pictureParameterSets: [PictureParameterSetTests.highPPS], lengthSize: 2)
        #expect(high.bytes == Self.highRecord)

        let high422 = try AVCDecoderConfigurationRecord(
            sequenceParameterSets: [SequenceParameterSetTests.high422SPS],
            pictureParameterSets: [PictureParameterSetTests.high422PPS],
            sequenceParameterSetExtensions: [[0x6D, 0x80]])
        #expect(high422.bytes == Self.high422Record)
        #expect(high422.chromaExtension == AVCDecoderConfigurationRecord.ChromaExtension(
            chromaFormat: 2, bitDepthLumaMinus8: 2, bitDepthChromaMinus8: 2, sequenceParameterSetExtensions: [[0x6D, 0x80]]))
    }

    @Test(arguments: [baselineRecord, highRecord, high422Record]) func parsesBackByteExactly(_ bytes: [UInt8]) throws {
        let record = try AVCDecoderConfigurationRecord(bytes: bytes)
        #expect(record.bytes == bytes)
        var dirty: [UInt8] = [0xAA, 0xBB]
        record.serialize(into: &dirty)
        #expect(dirty == [0xAA, 0xBB] + bytes)
    }

    @Test func parsedFields() throws {
        let record = try AVCDecoderConfigurationRecord(bytes: Self.highRecord)
        #expect(record.profileIndication == 100 && record.profileCompatibility == 0 && record.levelIndication == 11)
        #expect(record.lengthSize == 2)
        #expect(record.sequenceParameterSets == [SequenceParameterSetTests.highSPS])
        #expect(record.pictureParameterSets == [PictureParameterSetTests.highPPS])
        #expect(record.chromaExtension?.chromaFormat == 1)
        // Older writers stop after the PPS list even for High profiles: the extension is then absent.
        let short = try AVCDecoderConfigurationRecord(bytes: Array(Self.highRecord.dropLast(4)))
        #expect(short.chromaExtension == nil && short.pictureParameterSets.count == 1)
        // Bytes after the record are ignored.
        #expect(try AVCDecoderConfigurationRecord(bytes: Self.baselineRecord + [0xFF]).bytes == Self.baselineRecord)
    }

    static let malformed: [(name: String, bytes: [UInt8], error: H264Error)] = [
        ("empty", [], .truncatedRecord(offset: 0)),
        ("version 0", [0x00, 0x42, 0xC0, 0x0A, 0xFF, 0xE1], .unsupportedConfigurationVersion(offset: 0, version: 0)),
        ("cut in the header", [0x01, 0x42, 0xC0, 0x0A, 0xFF], .truncatedRecord(offset: 5)),
        ("SPS longer than the record", [0x01, 0x42, 0xC0, 0x0A, 0xFF, 0xE1, 0x00, 0x17, 0x67, 0x42],
            .truncatedRecord(offset: 6)),
        ("SPS length cut", [0x01, 0x42, 0xC0, 0x0A, 0xFF, 0xE1, 0x00], .truncatedRecord(offset: 6)),
        ("empty SPS", [0x01, 0x42, 0xC0, 0x0A, 0xFF, 0xE1, 0x00, 0x00, 0x00], .zeroLength(offset: 6)),
        ("no PPS count", [0x01, 0x42, 0xC0, 0x0A, 0xFF, 0xE0], .truncatedRecord(offset: 6)),
        ("PPS cut", [0x01, 0x42, 0xC0, 0x0A, 0xFF, 0xE0, 0x01, 0x00, 0x05, 0x68], .truncatedRecord(offset: 7)),
        ("lengthSizeMinusOne 2", [0x01, 0x42, 0xC0, 0x0A, 0xFE, 0xE0, 0x00], .unsupportedLengthSize(3)),
        ("extension cut", Array(highRecord.dropLast(2)), .truncatedRecord(offset: 42)),
    ]

    @Test(arguments: 0..<malformed.count) func malformedRecords(_ index: Int) {
        let c = Self.malformed[index]
        #expect(throws: c.error, "\(c.name)") { try AVCDecoderConfigurationRecord(bytes: c.bytes) }
    }

    @Test func refusesWhatCannotBeSerialized() {
        let pps = PictureParameterSetTests.baselinePPS
        #expect(throws: H264Error.missingSequenceParameterSet) {
            try AVCDecoderConfigurationRecord(sequenceParameterSets: [], pictureParameterSets: [pps])
        }
        #expect(throws: H264Error.tooManyParameterSets(count: 32, limit: 31)) {
            try AVCDecoderConfigurationRecord(
                sequenceParameterSets: Array(repeating: SequenceParameterSetTests.baselineSPS, count: 32),
                pictureParameterSets: [pps])
        }
        #expect(throws: H264Error.parameterSetLengthNotRepresentable(length: 0)) {
            try AVCDecoderConfigurationRecord(
                sequenceParameterSets: [SequenceParameterSetTests.baselineSPS], pictureParameterSets: [[]])
        }
        #expect(throws: H264Error.parameterSetLengthNotRepresentable(length: 65536)) {
            try AVCDecoderConfigurationRecord(
                sequenceParameterSets: [SequenceParameterSetTests.baselineSPS],
                pictureParameterSets: [[0x68] + [UInt8](repeating: 0x11, count: 65535)])
        }
        #expect(throws: H264Error.unsupportedLengthSize(3)) {
            try AVCDecoderConfigurationRecord(
                sequenceParameterSets: [SequenceParameterSetTests.baselineSPS], pictureParameterSets: [pps],
                lengthSize: 3)
        }
        #expect(throws: H264Error.unexpectedNALUnitType(offset: 0, expected: .sps, found: .pps)) {
            try AVCDecoderConfigurationRecord(sequenceParameterSets: [pps], pictureParameterSets: [pps])
        }
    }
}
