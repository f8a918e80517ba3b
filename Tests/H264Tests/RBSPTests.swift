import Testing
import H264

@Suite struct RBSPTests {
    static let escaped: [UInt8] = [0x25, 0, 0, 3, 1, 0, 0, 3, 0, 0, 3]
    static let raw: [UInt8] = [0x25, 0, 0, 1, 0, 0, 0, 0]

    @Test func removesEmulationPreventionAndRemembersWhere() {
        let rbsp = RBSP(unescaping: Self.escaped)
        #expect(rbsp.bytes == Self.raw)
        #expect(rbsp.removedOffsets == [3, 7, 10])
        #expect(RBSP.removingEmulationPrevention(Self.escaped) == Self.raw)
        // RBSP byte 3 (the 01) is escaped byte 4; RBSP byte 6 is escaped byte 8.
        #expect(rbsp.escapedOffset(forRBSPOffset: 0) == 0)
        #expect(rbsp.escapedOffset(forRBSPOffset: 3) == 4)
        #expect(rbsp.escapedOffset(forRBSPOffset: 6) == 8)
    }

    @Test func insertsEmulationPrevention() {
        #expect(RBSP.addingEmulationPrevention(Self.raw) == Self.escaped)
        #expect(RBSP.addingEmulationPrevention([0, 0, 4, 0, 0, 2] as [UInt8]) == [0, 0, 4, 0, 0, 3, 2])
        #expect(RBSP.addingEmulationPrevention([0, 0, 0, 0] as [UInt8]) == [0, 0, 3, 0, 0, 3])
        #expect(RBSP.addingEmulationPrevention([0x80] as [UInt8]) == [0x80])
        #expect(RBSP.addingEmulationPrevention([] as [UInt8]) == [])
    }

    @Test func escapedBytesNeverContainAStartCodeAndRoundTrip() {
        var state: UInt32 = 12345
        for _ in 0..<200 {
            var raw: [UInt8] = []
            for _ in 0..<40 {
                state = state &* 1_103_515_245 &+ 12345
                raw.append(state >> 16 & 3 == 0 ? UInt8(truncatingIfNeeded: state >> 24) : 0)
            }
            let escaped = RBSP.addingEmulationPrevention(raw)
            #expect(RBSP.removingEmulationPrevention(escaped) == raw)
            let startCodes = (0..<max(0, escaped.count - 2)).filter {
                escaped[$0] == 0 && escaped[$0 + 1] == 0 && escaped[$0 + 2] <= 3 && escaped[$0 + 2] != 3
            }
            #expect(startCodes.isEmpty)
        }
    }
}
