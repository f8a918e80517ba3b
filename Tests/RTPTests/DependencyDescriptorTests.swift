import Testing
@testable import RTP

/// The Dependency Descriptor (AV1 RTP specification, Appendix A) for H.264 temporal layers (issue 23, item 1): the
/// keyframe descriptors with libwebrtc's L1T2 and L1T3 structures byte for byte, the 3-byte form, round trips with
/// custom fields, and bad input refused with the reason named.
@Suite struct DependencyDescriptorTests {
    static let l1t2 = DependencyStructure.singleSpatialLayer(temporalLayers: 2)!
    static let l1t3 = DependencyStructure.singleSpatialLayer(temporalLayers: 3)!

    /// The expected bytes were computed separately from the specification's syntax tables (A.8.2) by a script, for
    /// frame number 0x1234 and template id offset 0; both keyframe descriptors fit a one-byte header element (at most
    /// 16 bytes), L1T3's exactly.
    @Test(arguments: [
        (2, "c0123480011ea851410108"),
        (3, "c01234800214eaa860414d1410208426"),
    ])
    func aKeyframeCarriesLibwebrtcsStructure(temporalLayers: Int, expected: String) throws {
        let structure = try #require(DependencyStructure.singleSpatialLayer(temporalLayers: temporalLayers))
        let descriptor = DependencyDescriptor(
            startOfFrame: true, endOfFrame: true, templateID: 0, frameNumber: 0x1234, structure: structure)
        let bytes = try descriptor.serialized()
        #expect(bytes == hex(expected))
        #expect(bytes.count <= 16)
        let parsed = try DependencyDescriptor(parsing: bytes)
        #expect(parsed == descriptor)
    }

    @Test func aFrameMatchingItsTemplateTakesThreeBytes() throws {
        let descriptor = DependencyDescriptor(startOfFrame: true, endOfFrame: true, templateID: 3, frameNumber: 0x1235)
        let bytes = try descriptor.serialized(current: Self.l1t3)
        #expect(bytes == hex("c31235"))
        let parsed = try DependencyDescriptor(parsing: bytes, structure: Self.l1t3)
        #expect(parsed == descriptor)
        #expect(try Self.l1t3.templateIndex(of: parsed.templateID) == 3)
        // A middle packet: neither start nor end.
        let middle = DependencyDescriptor(startOfFrame: false, endOfFrame: false, templateID: 2, frameNumber: 0xFFFF)
        #expect(try middle.serialized() == [0x02, 0xFF, 0xFF])
    }

    @Test func libwebrtcsTemplatesAreTheL1TStructures() {
        #expect(Self.l1t3.decodeTargetCount == 3)
        #expect(Self.l1t3.chainCount == 1)
        #expect(Self.l1t3.templates.map(\.temporalID) == [0, 0, 1, 2, 2])
        #expect(Self.l1t3.templates.map(\.frameDiffs) == [[], [4], [2], [1], [1]])
        #expect(Self.l1t3.templates.map(\.chainDiffs) == [[0], [4], [2], [1], [3]])
        #expect(Self.l1t3.templates[2].decodeTargetIndications == [.notPresent, .discardable, .switch])
        #expect(Self.l1t2.templates.map(\.temporalID) == [0, 0, 1])
        #expect(DependencyStructure.singleSpatialLayer(temporalLayers: 1)?.decodeTargetCount == 1)
        #expect(DependencyStructure.singleSpatialLayer(temporalLayers: 4) == nil)
    }

    /// Custom DTIs, frame diffs of every size class and chain diffs, the active decode targets, and an offset
    /// template id: written against the structure in force and read back the same.
    @Test func customFieldsRoundTrip() throws {
        var structure = Self.l1t3
        structure.templateIDOffset = 62
        let descriptor = DependencyDescriptor(
            startOfFrame: true, endOfFrame: false, templateID: structure.templateID(ofIndex: 3), frameNumber: 7,
            activeDecodeTargets: 0b011, customDecodeTargetIndications: [.required, .notPresent, .discardable],
            customFrameDiffs: [1, 16, 17, 256, 257, 4096], customChainDiffs: [200])
        #expect(descriptor.templateID == 1)  // (3 + 62) mod 64
        let bytes = try descriptor.serialized(current: structure)
        let parsed = try DependencyDescriptor(parsing: bytes, structure: structure)
        #expect(parsed == descriptor)
        #expect(try structure.templateIndex(of: parsed.templateID) == 3)
    }

    /// Structures with every chain count (the `ns(n)` coding at each size), several spatial layers and resolutions.
    @Test(arguments: 0...5)
    func structuresRoundTrip(chains: Int) throws {
        let targets = 5
        var templates: [FrameDependencyTemplate] = []
        for (spatial, temporal) in [(0, 0), (0, 0), (0, 1), (1, 0), (1, 1), (1, 2), (2, 0)] {
            templates.append(FrameDependencyTemplate(
                spatialID: spatial, temporalID: temporal,
                decodeTargetIndications: (0..<targets).map { DecodeTargetIndication(rawValue: UInt8(($0 + temporal) % 4))! },
                frameDiffs: Array([1, 16, 3].prefix(temporal + 1)), chainDiffs: (0..<chains).map { ($0 * 5 + spatial) % 16 }))
        }
        let structure = DependencyStructure(
            templateIDOffset: 9, decodeTargetCount: targets, chainCount: chains,
            decodeTargetProtectedByChain: chains == 0 ? [] : (0..<targets).map { $0 % chains }, templates: templates,
            resolutions: [.init(width: 320, height: 180), .init(width: 640, height: 360), .init(width: 65_536, height: 1)])
        let descriptor = DependencyDescriptor(
            startOfFrame: true, endOfFrame: true, templateID: structure.templateID(ofIndex: 6), frameNumber: 1,
            structure: structure)
        let parsed = try DependencyDescriptor(parsing: try descriptor.serialized())
        #expect(parsed == descriptor)
    }

    @Test func badDescriptorsAreRefusedWithTheReason() throws {
        // Shorter than the mandatory fields.
        #expect(throws: DependencyDescriptorError.truncated) { try DependencyDescriptor(parsing: [0x80, 0x00]) }
        // Extended fields with no structure attached or in force.
        let custom = DependencyDescriptor(
            startOfFrame: true, endOfFrame: true, templateID: 1, frameNumber: 2, customFrameDiffs: [3])
        #expect(throws: DependencyDescriptorError.noStructure) { try custom.serialized() }
        let bytes = try custom.serialized(current: Self.l1t3)
        #expect(throws: DependencyDescriptorError.noStructure) { try DependencyDescriptor(parsing: bytes) }
        // A template the structure does not have.
        #expect(throws: DependencyDescriptorError.unknownTemplate(9)) {
            try DependencyDescriptor(parsing: [0xC9, 0x00, 0x01], structure: Self.l1t3)
        }
        // Every truncation of a keyframe descriptor is an error, never a trap.
        let keyframe = try DependencyDescriptor(
            startOfFrame: true, endOfFrame: true, templateID: 0, frameNumber: 1, structure: Self.l1t3).serialized()
        for length in 4..<keyframe.count {
            #expect(throws: DependencyDescriptorError.truncated) {
                try DependencyDescriptor(parsing: keyframe.prefix(length))
            }
        }
        // Values out of range are named when writing.
        let farDiff = DependencyDescriptor(
            startOfFrame: true, endOfFrame: true, templateID: 0, frameNumber: 0, customFrameDiffs: [4097])
        #expect(throws: DependencyDescriptorError.valueOutOfRange("frame diff 4097")) {
            try farDiff.serialized(current: Self.l1t3)
        }
        var badOrder = Self.l1t3
        badOrder.templates.swapAt(1, 3)
        let misordered = DependencyDescriptor(
            startOfFrame: true, endOfFrame: true, templateID: 0, frameNumber: 0, structure: badOrder)
        #expect(throws: DependencyDescriptorError.valueOutOfRange("template layer order")) { try misordered.serialized() }
        #expect("\(DependencyDescriptorError.unknownTemplate(9))" == "dependency descriptor: template id 9 is not in the structure")
    }

    /// A structure of 65 templates cannot be read (the specification allows 64).
    @Test func moreThanSixtyFourTemplatesAreRefused() {
        // Mandatory fields, flags (structure present), offset 0, one decode target, then 64 "same layer" layer codes.
        var bits: [Int] = [1, 1, 0, 0, 0, 0, 0, 0] + Array(repeating: 0, count: 16) + [1, 0, 0, 0, 0]
        bits += Array(repeating: 0, count: 6 + 5)
        for _ in 0..<64 { bits += [0, 0] }
        bits += [1, 1]
        while bits.count % 8 != 0 { bits.append(0) }
        bits += Array(repeating: 0, count: 64)
        let bytes = stride(from: 0, to: bits.count, by: 8).map { start in
            bits[start..<start + 8].reduce(UInt8(0)) { $0 << 1 | UInt8($1) }
        }
        #expect(throws: DependencyDescriptorError.valueOutOfRange("more than 64 templates")) {
            try DependencyDescriptor(parsing: bytes)
        }
    }
}
