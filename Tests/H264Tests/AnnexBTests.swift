import Testing
@testable import H264

@Suite struct AnnexBTests {
    @Test func scansThreeAndFourByteStartCodesWithTrailingZeros() {
        let stream: [UInt8] = [0, 0, 0, 1, 0x67, 0x42, 0, 0, 1, 0x68, 0xCE, 0x00, 0x00, 0, 0, 0, 1, 0x65, 0x88, 0x84]
        let units = AnnexB.nalUnitLocations(in: stream)
        #expect(units.map(\.offset) == [4, 9, 17])
        #expect(units.map(\.length) == [2, 2, 3])
        #expect(units.map(\.type) == [.sps, .pps, .idrSlice])
        #expect(AnnexB.nalUnits(in: stream).map(Array.init) == [[0x67, 0x42], [0x68, 0xCE], [0x65, 0x88, 0x84]])
    }
}
