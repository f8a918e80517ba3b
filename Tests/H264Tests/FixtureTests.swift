import Foundation
import Testing
import H264

/// Real x264 streams (Fixtures/README.md says how they were made) checked against what ffprobe 5.1 reported for
/// them: `ffprobe -show_streams` for the stream fields, `ffprobe -show_entries packet=pos,size,flags` for the access
/// units. The values are written literally; nothing external runs.
@Suite struct FixtureTests {
    struct Expected {
        var file: String
        var profile: String
        var level: Int  // ffprobe `level` = level_idc
        var width: Int
        var height: Int
        var chromaFormatIdc: Int  // from ffprobe `pix_fmt`: yuv420p -> 1, yuv422p10le -> 2
        var bitsPerRawSample: Int
        var progressive: Bool  // ffprobe `field_order`: progressive, or tt for the MBAFF stream
        var packets: [(pos: Int, size: Int, key: Bool)]
        var nalTypes: [[NALUnitType]]
        var profileLevelID: String
    }

    static let expectations: [Expected] = [
        Expected(
            file: "high-slices", profile: "High", level: 11, width: 176, height: 144, chromaFormatIdc: 1,
            bitsPerRawSample: 8, progressive: true,
            packets: [(0, 2148, true), (2148, 66, false), (2214, 93, false)],
            nalTypes: [
                [.sps, .pps, .sei, .idrSlice, .idrSlice, .idrSlice, .idrSlice],
                [.nonIDRSlice, .nonIDRSlice, .nonIDRSlice, .nonIDRSlice],
                [.nonIDRSlice, .nonIDRSlice, .nonIDRSlice, .nonIDRSlice],
            ],
            profileLevelID: "64000b"),
        Expected(
            file: "crop-1080p", profile: "Constrained Baseline", level: 40, width: 1920, height: 1080,
            chromaFormatIdc: 1, bitsPerRawSample: 8, progressive: true,
            packets: [(0, 10449, true), (10449, 964, false)],
            nalTypes: [[.sps, .pps, .sei, .idrSlice], [.nonIDRSlice]],
            profileLevelID: "42c028"),
        Expected(
            file: "baseline-aud", profile: "Constrained Baseline", level: 10, width: 128, height: 96,
            chromaFormatIdc: 1, bitsPerRawSample: 8, progressive: true,
            packets: [(0, 1447, true), (1447, 25, false), (1472, 19, false)],
            nalTypes: [
                [.accessUnitDelimiter, .sps, .pps, .sei, .idrSlice], [.accessUnitDelimiter, .nonIDRSlice],
                [.accessUnitDelimiter, .nonIDRSlice],
            ],
            profileLevelID: "42c00a"),
        Expected(
            file: "high422-interlaced", profile: "High 4:2:2", level: 21, width: 176, height: 120,
            chromaFormatIdc: 2, bitsPerRawSample: 10, progressive: false,
            packets: [(0, 2307, true), (2307, 105, false)],
            nalTypes: [[.sps, .pps, .sei, .sei, .idrSlice], [.sei, .nonIDRSlice]],
            profileLevelID: "7a0015"),
    ]

    static func load(_ name: String) throws -> [UInt8] {
        let url = try #require(
            Bundle.module.url(forResource: name, withExtension: "h264", subdirectory: "Fixtures"),
            "fixture \(name).h264 missing from the test bundle")
        return [UInt8](try Data(contentsOf: url))
    }

    @Test(arguments: 0..<expectations.count) func matchesFFprobe(_ index: Int) throws {
        let e = Self.expectations[index]
        let bytes = try Self.load(e.file)
        let units = try AnnexB.accessUnits(in: bytes)
        #expect(units.map(\.byteRange.lowerBound) == e.packets.map(\.pos), "\(e.file)")
        #expect(units.map(\.byteRange.count) == e.packets.map(\.size), "\(e.file)")
        #expect(units.map(\.isKeyframe) == e.packets.map(\.key), "\(e.file)")
        #expect(units.map { $0.nalUnits.map(\.type) } == e.nalTypes, "\(e.file)")

        let spsLocation = try #require(AnnexB.nalUnitLocations(in: bytes).first { $0.type == .sps })
        let sps = try SequenceParameterSet(nalUnit: bytes[spsLocation.range])
        #expect(sps.profileLevelID.profileName == e.profile)
        #expect(Int(sps.levelIdc) == e.level)
        #expect(sps.width == e.width && sps.height == e.height)
        #expect(sps.chromaFormatIdc == e.chromaFormatIdc)
        #expect(sps.bitDepthLuma == e.bitsPerRawSample && sps.bitDepthChroma == e.bitsPerRawSample)
        #expect(sps.frameMbsOnlyFlag == e.progressive)
        #expect(sps.profileLevelID.description == e.profileLevelID)

        let ppsLocation = try #require(AnnexB.nalUnitLocations(in: bytes).first { $0.type == .pps })
        let pps = try PictureParameterSet(nalUnit: bytes[ppsLocation.range], chromaFormatIdc: sps.chromaFormatIdc)
        #expect(pps.sequenceParameterSetID == sps.id)
    }

    @Test(arguments: expectations.map(\.file)) func avccRoundTripOfARealStream(_ file: String) throws {
        let bytes = try Self.load(file)
        #expect(AnnexB.nalUnitLocations(in: bytes) == AnnexBTests.referenceScan(bytes))
        let fourByteStartCodes = AnnexB.serialize(AnnexB.nalUnits(in: bytes))
        for lengthSize in [2, 4] {
            let avcc = try AVCC.fromAnnexB(bytes, lengthSize: lengthSize)
            #expect(try AVCC.toAnnexB(avcc, lengthSize: lengthSize) == fourByteStartCodes)
            #expect(try AVCC.fromAnnexB(fourByteStartCodes, lengthSize: lengthSize) == avcc)
        }
    }

    @Test func avcRecordFromARealKeyframe() throws {
        let bytes = try Self.load("high-slices")
        let units = try AnnexB.accessUnits(in: bytes)
        let keyframe = EncodedFrame(
            bytes: Array(bytes[units[0].byteRange]),
            nalUnits: units[0].nalUnits.map {
                NALUnitLocation(offset: $0.offset - units[0].byteRange.lowerBound, length: $0.length, header: $0.header)
            },
            isKeyframe: true, timestamp: 0)
        let record = try AVCDecoderConfigurationRecord(
            sequenceParameterSets: keyframe.sequenceParameterSets.map(Array.init),
            pictureParameterSets: keyframe.pictureParameterSets.map(Array.init), lengthSize: 2)
        #expect(record.bytes == AVCDecoderConfigurationRecordTests.highRecord)
    }
}
