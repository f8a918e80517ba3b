import Testing
import H264

@Suite struct AccessUnitTests {
    // Slice NAL units: header, then first_mb_in_slice ue(v), slice_type ue(v), pic_parameter_set_id ue(v).
    // 0x88 = 1 000 1 000: first_mb 0, slice_type 7 (I, all), pps 0... read as ue: "1" -> 0, "0001000" -> 7, "1" -> 0.
    static let idrFirst: [UInt8] = [0x65, 0x88, 0x80]
    // 0x42 0x20 = 010 0001000 1 00000: first_mb 1, slice_type 7, pps 0.
    static let idrSecond: [UInt8] = [0x65, 0x42, 0x20]
    // 0xB4 = 1 011 010 0: first_mb 0, slice_type 2 (I), pps 1.
    static let sliceFirst: [UInt8] = [0x41, 0xB4]

    @Test func splitsOnFirstSliceOfNewPictureAndAttachesParameterSetsToTheNext() throws {
        let stream = AnnexB.serialize([
            [0x67, 0x42, 0xC0, 0x0A, 0xDA], [0x68, 0xCE], Self.idrFirst, Self.idrSecond,
            [0x06, 0x05, 0x01, 0x80], Self.sliceFirst, [0x67, 0x42], Self.idrFirst,
        ])
        let units = try AnnexB.accessUnits(in: stream)
        #expect(units.map { $0.nalUnits.map(\.type) } == [
            [.sps, .pps, .idrSlice, .idrSlice], [.sei, .nonIDRSlice], [.sps, .idrSlice],
        ])
        #expect(units.map(\.isKeyframe) == [true, false, true])
        // Sizes: 4+5 + 4+2 + 4+3 + 4+3 = 29; 4+4 + 4+2 = 14; 4+2 + 4+3 = 13.
        #expect(units.map(\.byteRange) == [0..<29, 29..<43, 43..<56])
    }

    @Test func splitsOnAccessUnitDelimiterEvenWithoutANewPicture() throws {
        let stream: [UInt8] = [0, 0, 1, 0x09, 0x10, 0, 0, 1, 0x41, 0x9A, 0, 0, 0, 1, 0x09, 0x30, 0, 0, 1, 0x41, 0x44, 0x40]
        let units = try AnnexB.accessUnits(in: stream)
        #expect(units.map { $0.nalUnits.map(\.type) } == [[.accessUnitDelimiter, .nonIDRSlice], [.accessUnitDelimiter, .nonIDRSlice]])
        #expect(units.map(\.byteRange) == [0..<10, 10..<22])
    }

    @Test func sliceHeaderFields() throws {
        #expect(try SliceHeader(nalUnit: Self.idrFirst) == SliceHeader(firstMbInSlice: 0, sliceType: 7, picParameterSetID: 0))
        #expect(try SliceHeader(nalUnit: Self.idrSecond) == SliceHeader(firstMbInSlice: 1, sliceType: 7, picParameterSetID: 0))
        #expect(try SliceHeader(nalUnit: Self.sliceFirst) == SliceHeader(firstMbInSlice: 0, sliceType: 2, picParameterSetID: 1))
    }

    /// Malformed streams and the exact error each must give (offsets are bytes of the stream).
    static let malformed: [(name: String, stream: [UInt8], error: H264Error)] = [
        ("empty", [], .noNALUnits),
        ("zeros only", [0, 0, 0, 0], .noNALUnits),
        ("no start code", [0x12, 0x34, 0x56], .dataBeforeFirstStartCode(offset: 0)),
        ("garbage before first start code", [0, 0x7F, 0, 0, 1, 0x09, 0x10], .dataBeforeFirstStartCode(offset: 1)),
        ("forbidden zero bit", [0, 0, 1, 0x09, 0x10, 0, 0, 1, 0xE5, 0x88], .forbiddenZeroBit(offset: 8)),
        ("slice header cut short", [0, 0, 0, 1, 0x65, 0x01], .endOfData(offset: 6)),
        ("slice type out of range", [0, 0, 1, 0x41, 0x8B, 0x80], .valueOutOfRange(offset: 4, field: "slice_type", value: 10)),
        ("first_mb Exp-Golomb too long", [0, 0, 1, 0x41, 0, 0, 3, 0, 0, 3, 0, 0, 3, 0, 0x80], .expGolombTooLong(offset: 4)),
    ]

    @Test(arguments: 0..<malformed.count) func malformedStreams(_ index: Int) {
        let c = Self.malformed[index]
        #expect(throws: c.error, "\(c.name)") { try AnnexB.accessUnits(in: c.stream) }
    }
}
