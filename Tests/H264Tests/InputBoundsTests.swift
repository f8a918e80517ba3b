import Testing
@testable import H264

/// Truncated and oversized input for every H264-module parser (issue 11 item 1): each gives a typed `H264Error`,
/// never a trap. Bounds in `BitReader` are checked on every read, so these tests show that no input reaches a
/// precondition.
@Suite struct H264InputBoundsTests {
    static let parameterSets: [(String, [UInt8])] = [
        ("baseline SPS", SequenceParameterSetTests.baselineSPS),
        ("high SPS", SequenceParameterSetTests.highSPS),
        ("high 4:2:2 SPS", SequenceParameterSetTests.high422SPS),
    ]

    @Test(arguments: parameterSets.map(\.0))
    func everyTruncationOfAnSPSThrowsOrReadsTheSameFields(name: String) throws {
        let sps = try #require(Self.parameterSets.first { $0.0 == name }?.1)
        let whole = try SequenceParameterSet(nalUnit: sps)
        var failures = 0
        for length in 0..<sps.count {
            // The parser stops at vui_parameters_present_flag (VUI is not needed), so a prefix that still holds
            // every field it reads parses to the same values; any shorter one is an error. None may trap.
            do {
                #expect(try SequenceParameterSet(nalUnit: sps[..<length]) == whole, "\(name), \(length) bytes")
            } catch {
                failures += 1
            }
        }
        #expect(failures >= 5, "the header and the first fields cannot be cut")
        #expect(throws: H264Error.endOfData(offset: 1)) { try SequenceParameterSet(nalUnit: sps[..<1]) }
    }

    @Test func everyTruncationOfAPPSThrowsOrKeepsItsIDs() throws {
        for pps in [PictureParameterSetTests.baselinePPS, PictureParameterSetTests.highPPS,
                    PictureParameterSetTests.high422PPS] {
            let whole = try PictureParameterSet(nalUnit: pps)
            for length in 0..<pps.count {
                // A cut PPS can end on a 1 bit that then reads as its stop bit; it parses fewer fields, but the
                // leading ones are the same. None may trap.
                if let partial = try? PictureParameterSet(nalUnit: pps[..<length]) {
                    #expect(partial.id == whole.id && partial.sequenceParameterSetID == whole.sequenceParameterSetID)
                }
            }
            #expect(throws: H264Error.endOfData(offset: 1)) { try PictureParameterSet(nalUnit: pps[..<1]) }
        }
    }

    @Test func oversizedParameterSetsAreRangeErrorsNotTraps() {
        // An SPS whose fields are all the largest Exp-Golomb codes: 31 leading zeros, then all ones.
        var bits = [UInt8](repeating: 0, count: 4) + [UInt8](repeating: 0xFF, count: 4)
        #expect(throws: H264Error.self) { try SequenceParameterSet(nalUnit: [0x67, 0x64, 0x00, 0x1F] + bits) }
        // 32 leading zeros: longer than any 32-bit code.
        bits = [UInt8](repeating: 0, count: 5) + [0x80]
        var reader = BitReader(bits)
        #expect(throws: H264Error.expGolombTooLong(offset: 0)) { try reader.ue() }
        // A megabyte of slice data after a valid header parses the header and ignores the rest.
        let slice: [UInt8] = [0x65, 0x88] + [UInt8](repeating: 0xAB, count: 1 << 20)
        #expect((try? SliceHeader(nalUnit: slice))?.firstMbInSlice == 0)
    }

    @Test func bitReaderSkipBeyondTheEndThrowsAndDoesNotMove() throws {
        var reader = BitReader([0xFF, 0x00])
        #expect(throws: H264Error.endOfData(offset: 2)) { try reader.skip(17) }
        #expect(reader.bitPosition == 0)
        try reader.skip(16)
        #expect(reader.bitsRemaining == 0)
        #expect(throws: H264Error.endOfData(offset: 2)) { try reader.bits(1) }
    }

    @Test func everyTruncationOfAnAVCCStreamIsASpecificError() throws {
        let stream = AVCCTests.avcc4
        let boundaries: Set<Int> = [0, 6, 14, 23]
        for length in 0..<stream.count where !boundaries.contains(length) {
            let prefix = Array(stream[..<length])
            #expect(throws: H264Error.self, "\(length) bytes") { try AVCC.nalUnitLocations(in: prefix, lengthSize: 4) }
        }
        #expect(throws: H264Error.truncatedLengthPrefix(offset: 0, lengthSize: 4, available: 3)) {
            try AVCC.nalUnitLocations(in: [0, 0, 0], lengthSize: 4)
        }
        // A length field of 4 GiB - 1 in a 10-byte buffer.
        #expect(throws: H264Error.lengthOverrun(offset: 0, length: 0xFFFF_FFFF, available: 6)) {
            try AVCC.nalUnitLocations(in: [0xFF, 0xFF, 0xFF, 0xFF, 0x65, 0, 0, 0, 0, 0], lengthSize: 4)
        }
        #expect(throws: H264Error.unsupportedLengthSize(3)) { try AVCC.nalUnitLocations(in: stream, lengthSize: 3) }
        #expect(throws: H264Error.unsupportedLengthSize(-1)) { try AVCC.toAnnexB(stream, lengthSize: -1) }
    }

    @Test func everyTruncationOfAnAVCCRecordIsTruncatedRecord() throws {
        for record in [AVCDecoderConfigurationRecordTests.baselineRecord, AVCDecoderConfigurationRecordTests.highRecord] {
            _ = try AVCDecoderConfigurationRecord(bytes: record)
            // The High record's 4-byte chroma extension is optional, so its prefix without it parses.
            let optionalTail = record[1] == 0x64 ? 4 : 0
            for length in 0..<(record.count - optionalTail) where length != record.count - optionalTail {
                #expect(throws: H264Error.self, "\(length) bytes") {
                    try AVCDecoderConfigurationRecord(bytes: Array(record[..<length]))
                }
            }
        }
    }

    @Test func annexBScanningHandlesDegenerateAndLargeInput() throws {
        #expect(AnnexB.nalUnitLocations(in: [UInt8](repeating: 0, count: 1 << 20)).isEmpty)
        #expect(AnnexB.nalUnitLocations(in: [0, 0, 1]).isEmpty)
        #expect(AnnexB.nalUnitLocations(in: [0, 0, 0, 1, 0, 0, 1, 0, 0, 1]).allSatisfy { $0.length == 0 || $0.offset + $0.length <= 10 })
        #expect(throws: H264Error.noNALUnits) { try AnnexB.accessUnits(in: []) }
        let many = [UInt8](repeating: 0, count: 0) + Array([[0, 0, 1, 0x41, 0x9A] as [UInt8]].joined())
        #expect(AnnexB.nalUnitLocations(in: many).count == 1)
    }
}
