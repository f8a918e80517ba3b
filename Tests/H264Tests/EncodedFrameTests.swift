import Testing
import H264

@Suite struct EncodedFrameTests {
    @Test func buildsFromNALUnitsAndFindsParameterSets() {
        let frame = EncodedFrame(nalUnits: [[0x67, 0x42, 0xC0], [0x68, 0xCE], [0x06, 0x05], [0x65, 0x88]] as [[UInt8]], timestamp: 3000)
        #expect(frame.bytes == [0, 0, 0, 1, 0x67, 0x42, 0xC0, 0, 0, 0, 1, 0x68, 0xCE, 0, 0, 0, 1, 0x06, 0x05, 0, 0, 0, 1, 0x65, 0x88])
        #expect(frame.nalUnits.map(\.offset) == [4, 11, 17, 23])
        #expect(frame.nalUnits == AnnexB.nalUnitLocations(in: frame.bytes))
        #expect(frame.isKeyframe && frame.timestamp == 3000 && frame.size == 25)
        #expect(frame.parameterSets.map(Array.init) == [[0x67, 0x42, 0xC0], [0x68, 0xCE]])
        #expect(frame.sequenceParameterSets.map(\.startIndex) == [4])
        #expect(frame.pictureParameterSets.map(\.startIndex) == [11])
        #expect(Array(frame.nalUnit(3)) == [0x65, 0x88])
    }

    @Test func deltaFrameHasNoParameterSets() {
        let frame = EncodedFrame(annexB: [0, 0, 1, 0x41, 0x9A, 0x02], timestamp: 6000)
        #expect(!frame.isKeyframe)
        #expect(frame.parameterSets.isEmpty)
        #expect(frame.nalUnits.map(\.type) == [.nonIDRSlice])
    }
}
