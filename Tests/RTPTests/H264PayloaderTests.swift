import H264
import Testing
@testable import RTP

@Suite struct H264PayloaderTests {
    static let limit = 100

    func locations(_ sizes: [Int]) -> [NALUnitLocation] {
        var offset = 4
        return sizes.map { size in
            defer { offset += size + 4 }
            return NALUnitLocation(offset: offset, length: size, header: NALUnitHeader(byte: 0x65))
        }
    }

    @Test func nalExactlyAtTheLimitIsASingleNALUnitPacket() throws {
        let plan = try H264Payloader.payloads(for: locations([Self.limit]), maxPayloadSize: Self.limit)
        #expect(plan == [H264PayloadDescriptor(kind: .single(index: 0), size: Self.limit, isLastOfAccessUnit: true)])
    }

    @Test func oneByteOverTheLimitIsTwoFUAFragments() throws {
        let plan = try H264Payloader.payloads(for: locations([Self.limit + 1]), maxPayloadSize: Self.limit)
        // 100 bytes after the header, 98 per fragment: two fragments of 50.
        #expect(plan == [
            H264PayloadDescriptor(kind: .fuA(index: 0, range: 1..<51, isStart: true, isEnd: false), size: 52,
                                  isLastOfAccessUnit: false),
            H264PayloadDescriptor(kind: .fuA(index: 0, range: 51..<101, isStart: false, isEnd: true), size: 52,
                                  isLastOfAccessUnit: true),
        ])
    }

    @Test func oneByteNALIsSingle() throws {
        let plan = try H264Payloader.payloads(for: locations([1]), maxPayloadSize: Self.limit)
        #expect(plan == [H264PayloadDescriptor(kind: .single(index: 0), size: 1, isLastOfAccessUnit: true)])
    }

    @Test func stapAExactlyFillingTheLimitAggregates() throws {
        // 1 (STAP-A header) + 2 + 40 + 2 + 55 = 100.
        let plan = try H264Payloader.payloads(for: locations([40, 55]), maxPayloadSize: Self.limit)
        #expect(plan == [H264PayloadDescriptor(kind: .stapA(indices: 0..<2), size: 100, isLastOfAccessUnit: true)])
    }

    @Test func stapAOneByteOverTheLimitFallsBackToSingles() throws {
        let plan = try H264Payloader.payloads(for: locations([40, 56]), maxPayloadSize: Self.limit)
        #expect(plan == [
            H264PayloadDescriptor(kind: .single(index: 0), size: 40, isLastOfAccessUnit: false),
            H264PayloadDescriptor(kind: .single(index: 1), size: 56, isLastOfAccessUnit: true),
        ])
    }

    @Test func parameterSetsAggregateAheadOfALargeSlice() throws {
        let plan = try H264Payloader.payloads(for: locations([10, 4, 6, 250]), maxPayloadSize: Self.limit)
        #expect(plan.first == H264PayloadDescriptor(kind: .stapA(indices: 0..<3), size: 1 + 12 + 6 + 8,
                                                    isLastOfAccessUnit: false))
        #expect(plan.dropFirst().allSatisfy { if case .fuA(3, _, _, _) = $0.kind { true } else { false } })
        #expect(plan.filter(\.isLastOfAccessUnit).count == 1 && plan.last!.isLastOfAccessUnit)
    }

    @Test func fragmentsAreNearEqualWithoutATinyLastOne() throws {
        // 2999 bytes after the header, 98 per fragment -> 31 fragments of 96 or 97 bytes.
        let plan = try H264Payloader.payloads(for: locations([3000]), maxPayloadSize: Self.limit)
        let sizes = plan.map(\.size)
        #expect(plan.count == 31)
        #expect(sizes.max()! - sizes.min()! <= 1)
        #expect(sizes.allSatisfy { $0 <= Self.limit })
        #expect(sizes.reduce(0, +) == 2999 + 2 * 31)
        var next = 1
        for (i, p) in plan.enumerated() {
            guard case .fuA(0, let range, let s, let e) = p.kind else { Issue.record("not FU-A"); return }
            #expect(range.lowerBound == next)
            #expect(s == (i == 0))
            #expect(e == (i == plan.count - 1))
            next = range.upperBound
        }
        #expect(next == 3000)
    }

    @Test func singleNALUnitModeNeverAggregatesAndRejectsLargeNALs() throws {
        let plan = try H264Payloader.payloads(for: locations([10, 4]), maxPayloadSize: Self.limit, mode: .singleNALUnit)
        #expect(plan.map(\.kind) == [.single(index: 0), .single(index: 1)])
        #expect(throws: H264PayloadError.nalUnitTooLarge(size: 101, limit: 100)) {
            try H264Payloader.payloads(for: locations([10, 101]), maxPayloadSize: Self.limit, mode: .singleNALUnit)
        }
    }

    @Test func invalidInputsAreSpecificErrors() {
        #expect(throws: H264PayloadError.emptyAccessUnit) {
            try H264Payloader.payloads(for: [], maxPayloadSize: Self.limit)
        }
        #expect(throws: H264PayloadError.emptyNALUnit(index: 1)) {
            try H264Payloader.payloads(for: locations([3, 0]), maxPayloadSize: Self.limit)
        }
        #expect(throws: H264PayloadError.payloadLimitTooSmall(2)) {
            try H264Payloader.payloads(for: locations([3]), maxPayloadSize: 2)
        }
    }

    @Test func payloadLimitSubtractsEveryHeader() {
        #expect(RTPPayloadLimit().maxPayloadSize == 1200 - 20 - 8 - 12 - 10)
        #expect(RTPPayloadLimit(ipVersion: .v6).maxPayloadSize == 1200 - 40 - 8 - 12 - 10)
        #expect(RTPPayloadLimit(mtu: 1500, rtpHeaderSize: 20, srtpTrailerSize: 0).maxPayloadSize == 1500 - 20 - 8 - 20)
    }
}
