import Testing
import H264

@Suite struct BitReaderTests {
    static let ueTable: [(bytes: [UInt8], value: UInt32)] = [
        ([0x80], 0), ([0x40], 1), ([0x60], 2), ([0x20], 3), ([0x28], 4), ([0x30], 5), ([0x38], 6), ([0x10], 7),
        ([0x00, 0x01, 0xFF, 0xFE], 65534),
        ([0x00, 0x00, 0x00, 0x01, 0xFF, 0xFF, 0xFF, 0xFE], 4_294_967_294),
    ]

    @Test(arguments: 0..<ueTable.count) func unsignedExpGolomb(_ index: Int) throws {
        var reader = BitReader(Self.ueTable[index].bytes)
        #expect(try reader.ue() == Self.ueTable[index].value)
    }

    static let seTable: [(bytes: [UInt8], value: Int32)] = [
        ([0x80], 0), ([0x40], 1), ([0x60], -1), ([0x20], 2), ([0x28], -2), ([0x30], 3),
        ([0x00, 0x00, 0x00, 0x01, 0xFF, 0xFF, 0xFF, 0xFC], 2_147_483_647),
        ([0x00, 0x00, 0x00, 0x01, 0xFF, 0xFF, 0xFF, 0xFE], -2_147_483_647),
    ]

    @Test(arguments: 0..<seTable.count) func signedExpGolomb(_ index: Int) throws {
        var reader = BitReader(Self.seTable[index].bytes)
        #expect(try reader.se() == Self.seTable[index].value)
    }

    @Test func consecutiveCodesAndFixedLengthFields() throws {
        // 1 010 011 00100 | 0001000 1 : ue 0, 1, 2, 3, 7, then flag.
        var reader = BitReader([0xA6, 0x41, 0x00])
        #expect(try reader.ue() == 0)
        #expect(try reader.ue() == 1)
        #expect(try reader.ue() == 2)
        #expect(try reader.ue() == 3)
        #expect(try reader.ue() == 7)
        #expect(reader.bitPosition == 1 + 3 + 3 + 5 + 7)

        var fixed = BitReader([0xA5, 0x5A, 0xFF, 0x12, 0x34, 0x56, 0x78])
        #expect(try fixed.bits(4) == 0xA)
        #expect(try fixed.bits(8) == 0x55)
        #expect(try fixed.bits(12) == 0xAFF)
        #expect(fixed.isByteAligned)
        #expect(try fixed.bits(32) == 0x1234_5678)
        #expect(fixed.bitsRemaining == 0)
        #expect(throws: H264Error.endOfData(offset: 7)) { try fixed.flag() }
    }

    static let errors: [(name: String, bytes: [UInt8], error: H264Error)] = [
        ("empty", [], .endOfData(offset: 0)),
        ("prefix without its one bit", [0x00], .endOfData(offset: 1)),
        ("suffix cut short", [0x01], .endOfData(offset: 1)),
        ("32 leading zeros", [0x00, 0x00, 0x00, 0x00, 0x80], .expGolombTooLong(offset: 0)),
        ("overlong second code", [0x80, 0x00, 0x00, 0x00, 0x00, 0x80], .expGolombTooLong(offset: 0)),
    ]

    @Test(arguments: 0..<errors.count) func malformedCodes(_ index: Int) {
        let c = Self.errors[index]
        var reader = BitReader(c.bytes)
        #expect(throws: c.error, "\(c.name)") {
            _ = try reader.ue()
            _ = try reader.ue()
        }
    }

    @Test func moreRBSPDataStopsAtTheStopBit() throws {
        var reader = BitReader([0xA0, 0x00, 0x00])  // 1 0 [stop bit] 00000, then two cabac_zero_word bytes
        #expect(reader.moreRBSPData())
        _ = try reader.bits(2)
        #expect(!reader.moreRBSPData())
        #expect(!BitReader([0x00]).moreRBSPData())
        #expect(!BitReader([]).moreRBSPData())
        var twoBytes = BitReader([0x12, 0x80])
        _ = try twoBytes.bits(8)
        #expect(!twoBytes.moreRBSPData())
    }
}
