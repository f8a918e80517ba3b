import Testing
import H264

@Suite struct AVCCTests {
    static let annexB: [UInt8] = [
        0, 0, 0, 1, 0x67, 0x42,
        0, 0, 0, 1, 0x68, 0xCE, 0x3C, 0x80,
        0, 0, 0, 1, 0x65, 0x88, 0x84, 0x00, 0x21,
    ]
    static let avcc4: [UInt8] = [
        0, 0, 0, 2, 0x67, 0x42,
        0, 0, 0, 4, 0x68, 0xCE, 0x3C, 0x80,
        0, 0, 0, 5, 0x65, 0x88, 0x84, 0x00, 0x21,
    ]
    static let avcc2: [UInt8] = [0, 2, 0x67, 0x42, 0, 4, 0x68, 0xCE, 0x3C, 0x80, 0, 5, 0x65, 0x88, 0x84, 0x00, 0x21]
    static let avcc1: [UInt8] = [2, 0x67, 0x42, 4, 0x68, 0xCE, 0x3C, 0x80, 5, 0x65, 0x88, 0x84, 0x00, 0x21]

    @Test(arguments: [(4, avcc4), (2, avcc2), (1, avcc1)])
    func convertsBothWaysByteExactly(_ lengthSize: Int, _ avcc: [UInt8]) throws {
        #expect(try AVCC.fromAnnexB(Self.annexB, lengthSize: lengthSize) == avcc)
        #expect(try AVCC.toAnnexB(avcc, lengthSize: lengthSize) == Self.annexB)
        #expect(try AVCC.fromAnnexB(try AVCC.toAnnexB(avcc, lengthSize: lengthSize), lengthSize: lengthSize) == avcc)
        let units = try AVCC.nalUnitLocations(in: avcc, lengthSize: lengthSize)
        #expect(units.map(\.type) == [.sps, .pps, .idrSlice])
        #expect(units.map(\.length) == [2, 4, 5])
        #expect(try AVCC.nalUnits(in: avcc, lengthSize: lengthSize).map(\.startIndex) == units.map(\.offset))
    }

    @Test func threeByteStartCodesBecomeFourAfterARoundTrip() throws {
        let short: [UInt8] = [0, 0, 1, 0x09, 0xF0, 0, 0, 1, 0x41, 0x9A, 0x00]
        let avcc = try AVCC.fromAnnexB(short, lengthSize: 4)
        #expect(avcc == [0, 0, 0, 2, 0x09, 0xF0, 0, 0, 0, 2, 0x41, 0x9A])
        #expect(try AVCC.toAnnexB(avcc, lengthSize: 4) == [0, 0, 0, 1, 0x09, 0xF0, 0, 0, 0, 1, 0x41, 0x9A])
    }

    @Test func appendsIntoACallersBuffer() throws {
        var buffer: [UInt8] = [0xEE]
        try AVCC.append([0x68, 0xCE] as [UInt8], lengthSize: 2, to: &buffer)
        #expect(buffer == [0xEE, 0, 2, 0x68, 0xCE])
    }

    static let malformed: [(name: String, bytes: [UInt8], lengthSize: Int, error: H264Error)] = [
        ("length size 3", avcc4, 3, .unsupportedLengthSize(3)),
        ("length size 0", avcc4, 0, .unsupportedLengthSize(0)),
        ("buffer shorter than a prefix", [0, 0, 0], 4, .truncatedLengthPrefix(offset: 0, lengthSize: 4, available: 3)),
        ("truncated second prefix", [0, 0, 0, 2, 0x67, 0x42, 0, 0], 4,
            .truncatedLengthPrefix(offset: 6, lengthSize: 4, available: 2)),
        ("length runs past the end", [0, 0, 0, 5, 0x67, 0x42], 4, .lengthOverrun(offset: 0, length: 5, available: 2)),
        ("second length runs past the end", [1, 0x09, 3, 0x41, 0x9A], 1, .lengthOverrun(offset: 2, length: 3, available: 2)),
        ("huge 4-byte length", [0xFF, 0xFF, 0xFF, 0xFF, 0x65], 4,
            .lengthOverrun(offset: 0, length: 4_294_967_295, available: 1)),
        ("zero length", [0, 0, 0x09], 2, .zeroLength(offset: 0)),
    ]

    @Test(arguments: 0..<malformed.count) func malformedInputs(_ index: Int) {
        let c = Self.malformed[index]
        #expect(throws: c.error, "\(c.name)") { try AVCC.toAnnexB(c.bytes, lengthSize: c.lengthSize) }
    }

    @Test func nalUnitTooLongForTheLengthField() throws {
        let stream: [UInt8] = [0, 0, 1, 0x09, 0xF0, 0, 0, 1] + [0x65] + [UInt8](repeating: 0xAB, count: 255)
        #expect(throws: H264Error.nalUnitLengthNotRepresentable(index: 1, length: 256, lengthSize: 1)) {
            try AVCC.fromAnnexB(stream, lengthSize: 1)
        }
        #expect(try AVCC.fromAnnexB(stream, lengthSize: 2).prefix(7) == [0, 2, 0x09, 0xF0, 1, 0, 0x65])
        #expect(throws: H264Error.unsupportedLengthSize(8)) { try AVCC.fromAnnexB(stream, lengthSize: 8) }
    }
}
