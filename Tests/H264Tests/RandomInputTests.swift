import Testing
import H264

/// Random and mutated inputs: every parser either throws an ``H264Error`` or returns values inside their ranges;
/// none traps or loops (a trap would end the test process).
@Suite struct RandomInputTests {
    struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 29
        }
        mutating func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8(truncatingIfNeeded: next()) } }
    }

    @Test func mutatedParameterSets() {
        var g = Generator(state: 7)
        let seeds = [
            SequenceParameterSetTests.baselineSPS, SequenceParameterSetTests.cropSPS,
            SequenceParameterSetTests.highSPS, SequenceParameterSetTests.high422SPS,
        ]
        var parsed = 0
        for round in 0..<4000 {
            var nal = seeds[round % seeds.count]
            for _ in 0..<(1 + Int(g.next() % 4)) {
                nal[1 + Int(g.next() % UInt64(nal.count - 1))] = UInt8(truncatingIfNeeded: g.next())
            }
            if g.next() % 4 == 0 { nal = Array(nal.prefix(1 + Int(g.next() % UInt64(nal.count)))) }
            if let sps = try? SequenceParameterSet(nalUnit: nal) {
                parsed += 1
                #expect(sps.width > 0 && sps.height > 0 && sps.width <= sps.codedWidth && sps.height <= sps.codedHeight)
                #expect((0...31).contains(sps.id) && (4...16).contains(sps.log2MaxFrameNum))
            }
        }
        #expect(parsed > 100)  // the mutations leave many parsable, so the range checks above really ran
    }

    @Test func randomPayloads() {
        var g = Generator(state: 99)
        for _ in 0..<4000 {
            let payload = g.bytes(Int(g.next() % 40))
            if let pps = try? PictureParameterSet(nalUnit: [0x68] + payload, chromaFormatIdc: Int(g.next() % 4)) {
                #expect((1...8).contains(pps.numSliceGroups) && (0...255).contains(pps.id))
            }
            if let header = try? SliceHeader(nalUnit: [0x65] + payload) {
                #expect((0...9).contains(header.sliceType))
            }
            if let record = try? AVCDecoderConfigurationRecord(bytes: [0x01] + payload) {
                #expect(record.bytes.count == record.serializedSize)
                #expect((try? AVCDecoderConfigurationRecord(bytes: record.bytes)) == record)
            }
            if let units = try? AVCC.nalUnitLocations(in: payload, lengthSize: 1) {
                #expect(units.reduce(0) { $0 + $1.length + 1 } == payload.count)
            }
        }
    }
}
