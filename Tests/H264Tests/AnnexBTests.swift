import Testing
import H264

@Suite struct AnnexBTests {
    @Test func scansThreeAndFourByteStartCodesWithTrailingZeros() {
        let stream: [UInt8] = [0, 0, 0, 1, 0x67, 0x42, 0, 0, 1, 0x68, 0xCE, 0x00, 0x00, 0, 0, 0, 1, 0x65, 0x88, 0x84]
        let units = AnnexB.nalUnitLocations(in: stream)
        #expect(units.map(\.offset) == [4, 9, 17])
        #expect(units.map(\.length) == [2, 2, 3])
        #expect(units.map(\.type) == [.sps, .pps, .idrSlice])
        #expect(AnnexB.nalUnits(in: stream).map(Array.init) == [[0x67, 0x42], [0x68, 0xCE], [0x65, 0x88, 0x84]])
    }

    @Test func nalUnitsAreSlicesOfTheInputNotCopies() {
        let stream: [UInt8] = [0, 0, 1, 0x09, 0xF0, 0, 0, 0, 1, 0x41, 0x9A, 0x02]
        let slices = AnnexB.nalUnits(in: stream)
        #expect(slices.map(\.startIndex) == [3, 9])
        #expect(slices.map(\.endIndex) == [5, 12])
        #expect(slices[1].withUnsafeBufferPointer { $0.baseAddress }
            == stream.withUnsafeBufferPointer { $0.baseAddress! + 9 })
    }

    /// Edge cases of the scanner, each with the (offset, length) pairs it must find.
    static let cases: [(name: String, stream: [UInt8], expected: [(Int, Int)])] = [
        ("empty", [], []),
        ("shorter than a start code", [0, 0], []),
        ("only a start code", [0, 0, 1], []),
        ("no start code", [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], []),
        ("leading zero bytes", [0, 0, 0, 0, 0, 0, 1, 0x67, 0x64], [(7, 2)]),
        ("garbage before first start code", [0xAB, 0xCD, 0, 0, 1, 0x06, 0x05], [(5, 2)]),
        ("two start codes in a row", [0, 0, 1, 0, 0, 1, 0x68, 0xEE], [(6, 2)]),
        ("start code at the end", [0, 0, 1, 0x68, 0xEE, 0, 0, 1], [(3, 2)]),
        ("only zeros after header", [0, 0, 1, 0x0C, 0, 0, 0, 0], [(3, 1)]),
        ("one-byte NAL units", [0, 0, 1, 0x09, 0, 0, 1, 0x0A, 0, 0, 1, 0x0B], [(3, 1), (7, 1), (11, 1)]),
        ("zero byte then 00 00 02 is no start code", [0, 0, 1, 0x65, 0, 0, 2, 0, 0, 3, 7], [(3, 8)]),
        ("start code straddling an 8-byte word", [0x65, 1, 2, 3, 4, 5, 6, 0, 0, 1, 0x41, 9], [(10, 2)]),
        ("start code at byte 7 of a word", [9, 9, 9, 9, 9, 9, 9, 0, 0, 1, 0x41, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0x41],
            [(10, 1), (21, 1)]),
        ("trailing_zero_8bits across words", [0, 0, 0, 1, 0x65, 0xAA] + [UInt8](repeating: 0, count: 17) + [1, 0x41],
            [(4, 2), (24, 1)]),
    ]

    @Test(arguments: 0..<cases.count) func edgeCases(_ index: Int) {
        let c = Self.cases[index]
        let found = AnnexB.nalUnitLocations(in: c.stream)
        #expect(found.map(\.offset) == c.expected.map(\.0), "\(c.name)")
        #expect(found.map(\.length) == c.expected.map(\.1), "\(c.name)")
    }

    /// The word-at-a-time scanner against the plain byte-by-byte definition, on pseudo-random streams dense in zero
    /// bytes and start codes so that every alignment is hit.
    @Test func agreesWithByteByByteScanOnRandomStreams() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        for round in 0..<300 {
            let length = Int(next() % 200)
            var stream: [UInt8] = []
            for _ in 0..<length {
                switch next() % 6 {
                case 0, 1: stream.append(0)
                case 2: stream.append(1)
                default: stream.append(UInt8(truncatingIfNeeded: next()))
                }
            }
            #expect(AnnexB.nalUnitLocations(in: stream) == Self.referenceScan(stream), "round \(round)")
        }
    }

    /// H.264 B.2 read literally: every `00 00 01` starts a NAL unit; zero bytes before the next one are dropped.
    static func referenceScan(_ b: [UInt8]) -> [NALUnitLocation] {
        var starts: [Int] = []
        var i = 0
        while i + 2 < b.count {
            if b[i] == 0 && b[i + 1] == 0 && b[i + 2] == 1 {
                starts.append(i + 3)
                i += 3
            } else {
                i += 1
            }
        }
        var result: [NALUnitLocation] = []
        for (k, start) in starts.enumerated() {
            var end = k + 1 < starts.count ? starts[k + 1] - 3 : b.count
            while end > start && b[end - 1] == 0 { end -= 1 }
            if end > start {
                result.append(NALUnitLocation(offset: start, length: end - start, header: NALUnitHeader(byte: b[start])))
            }
        }
        return result
    }

    @Test func serializeWritesFourByteStartCodes() {
        let out = AnnexB.serialize([[0x67, 0x42] as [UInt8], [0x68, 0xCE], [0x65, 0x88]])
        #expect(out == [0, 0, 0, 1, 0x67, 0x42, 0, 0, 0, 1, 0x68, 0xCE, 0, 0, 0, 1, 0x65, 0x88])
        var dirty: [UInt8] = [0xFF]
        AnnexB.append([0x09, 0xF0] as [UInt8], to: &dirty)
        #expect(dirty == [0xFF, 0, 0, 0, 1, 0x09, 0xF0])
    }

    /// The raw-memory entry point at an odd, unaligned address: offsets are relative to the buffer handed in.
    @Test func scansUnalignedMemory() {
        let storage: [UInt8] = [0xFF, 0, 0, 0, 1, 0x67, 0x42, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 0, 1, 0x68, 0xCE]
        let units = storage.withUnsafeBytes { AnnexB.nalUnitLocations(in: UnsafeRawBufferPointer(rebasing: $0[1...])) }
        #expect(units.map(\.offset) == [4, 18])
        #expect(units.map(\.length) == [11, 2])
        #expect(units.map(\.type) == [.sps, .pps])
    }
}
