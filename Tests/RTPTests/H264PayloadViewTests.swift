import Testing
@testable import RTP

@Suite struct H264PayloadViewTests {
    @Test func parsesTheThreeModeOneStructures() throws {
        let single = hex("65 0102")
        #expect(try H264PayloadView(parsing: single[...]) == .single(0..<3))
        let stap = hex("78 0002 6742 0003 68CE3C")
        #expect(try H264PayloadView(parsing: stap[...]) == .stapA([3..<5, 7..<10]))
        let fu = hex("7C 85 AABB")
        let view = try H264PayloadView(parsing: fu[...])
        #expect(view == .fuA(indicator: 0x7C, header: 0x85, data: 2..<4))
        #expect(view.isFragmentStart && !view.isFragmentEnd)
        #expect(view.reconstructedNALHeader == 0x65)
    }

    static let malformed: [(String, [UInt8], H264PayloadError)] = [
        ("empty", [], .emptyPayload),
        ("forbidden bit on a single NAL", [0x85, 0x00], .forbiddenBitSet),
        ("forbidden bit on a STAP-A", hex("98 0001 65"), .forbiddenBitSet),
        ("type 0", [0x00, 0x01], .reservedNALUnitType(0)),
        ("type 30", [0x1E, 0x01], .reservedNALUnitType(30)),
        ("type 31", [0x1F, 0x01], .reservedNALUnitType(31)),
        ("STAP-B", [0x19, 0x00], .notAllowedInNonInterleavedMode(25)),
        ("MTAP16", [0x1A, 0x00], .notAllowedInNonInterleavedMode(26)),
        ("MTAP24", [0x1B, 0x00], .notAllowedInNonInterleavedMode(27)),
        ("FU-B", [0x1D, 0x85, 0x00], .notAllowedInNonInterleavedMode(29)),
        ("STAP-A with no units", [0x78], .stapAEmpty),
        ("STAP-A size cut", hex("78 00"), .stapATruncatedSize(offset: 1)),
        ("STAP-A second size cut", hex("78 0001 65 00"), .stapATruncatedSize(offset: 4)),
        ("STAP-A zero length", hex("78 0000 65"), .stapAZeroLength(offset: 1)),
        ("STAP-A length overrun", hex("78 0005 6742"), .stapALengthOverrun(offset: 1, size: 5, available: 2)),
        ("FU-A indicator only", [0x7C], .fuATooShort(count: 1)),
        ("FU-A without data", [0x7C, 0x85], .fuATooShort(count: 2)),
        ("FU-A start and end", [0x7C, 0xC5, 0x00], .fuAStartAndEnd),
        ("FU-A of a FU-A", [0x7C, 0x9C, 0x00], .fuAInvalidNALUnitType(28)),
        ("FU-A of type 0", [0x7C, 0x80, 0x00], .fuAInvalidNALUnitType(0)),
        ("STAP-A inside a STAP-A", hex("78 0002 7800"), .stapAInvalidNALUnitType(offset: 3, type: 24)),
        ("STAP-A holding type 0", hex("78 0001 65 0001 00"), .stapAInvalidNALUnitType(offset: 6, type: 0)),
    ]

    @Test(arguments: malformed)
    func malformedPayloadsFailWithSpecificErrors(name: String, bytes: [UInt8], error: H264PayloadError) {
        #expect(throws: error, "\(name)") { try H264PayloadView(parsing: bytes[...]) }
    }
}
