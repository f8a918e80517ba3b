import H264
@testable import RTP
import Testing

/// The dependency descriptor on packets (issue 23, item 1): `DependencyDescriptorSequence` numbers and describes
/// each frame from the encoder's output against libwebrtc's templates, and the packetizer writes it on every packet
/// (start and end bits per packet, the structure on a keyframe's first packet only, RTX copies included).
@Suite struct DependencyDescriptorSequenceTests {
    static let l1t2 = DependencyStructure.singleSpatialLayer(temporalLayers: 2)!
    static let l1t3 = DependencyStructure.singleSpatialLayer(temporalLayers: 3)!

    /// Describes frames given as (keyframe, layer).
    static func describe(
        _ frames: [(Bool, Int)], structure: DependencyStructure = l1t3, first: UInt16 = 0x1234
    ) throws -> [DependencyDescriptorElement] {
        var sequence = DependencyDescriptorSequence(structure: structure, firstFrameNumber: first)
        return try frames.map { try sequence.describe(isKeyframe: $0.0, temporalLayer: $0.1) }
    }

    /// The whole descriptor of an element as a packet that is both first and last of its frame carries it.
    static func bytes(_ element: DependencyDescriptorElement) -> [UInt8] {
        var data = [UInt8](repeating: 0, count: element.size)
        data.withUnsafeMutableBytes { raw in
            var w = ByteWriter(raw)
            element.write(to: &w)
        }
        return data
    }

    /// OpenH264's L1T3 pattern (0, 2, 1, 2, ...) maps to libwebrtc's templates exactly as its writer picks them:
    /// key 0, then 3, 2, 4, 1 repeating; every frame after the keyframe takes the 3 mandatory bytes.
    @Test func theL1T3PatternTakesLibwebrtcsTemplates() throws {
        let layers = [0, 2, 1, 2, 0, 2, 1, 2, 0, 2]
        let elements = try Self.describe(layers.enumerated().map { ($0.offset == 0, $0.element) })
        #expect(elements.map(\.templateID) == [0, 3, 2, 4, 1, 3, 2, 4, 1, 3])
        #expect(elements.map(\.frameNumber) == (0..<10).map { 0x1234 + UInt16($0) })
        // The keyframe's descriptor is the structure's known 16 bytes (DependencyDescriptorTests).
        #expect(Self.bytes(elements[0]) == hex("c01234800214eaa860414d1410208426"))
        #expect(elements[0].laterPacketFields.isEmpty)
        for element in elements.dropFirst() {
            #expect(element.firstPacketFields.isEmpty && element.laterPacketFields.isEmpty)
            #expect(element.size == 3)
        }
        #expect(Self.bytes(elements[1]) == hex("c31235"))
    }

    @Test func theL1T2PatternTakesLibwebrtcsTemplates() throws {
        let elements = try Self.describe(
            [(true, 0), (false, 1), (false, 0), (false, 1), (false, 0)], structure: Self.l1t2)
        #expect(elements.map(\.templateID) == [0, 2, 1, 2, 1])
        #expect(Self.bytes(elements[0]) == hex("c0123480011ea851410108"))
    }

    /// Every keyframe (asked for or not) restarts the pattern and carries the structure again.
    @Test func aKeyframeInTheMiddleRestartsThePattern() throws {
        let elements = try Self.describe([(true, 0), (false, 2), (false, 1), (true, 0), (false, 2), (false, 1), (false, 2)])
        #expect(elements.map(\.templateID) == [0, 3, 2, 0, 3, 2, 4])
        #expect(elements[3].firstPacketFields == elements[0].firstPacketFields)
    }

    /// A frame no template describes (here a base-layer frame right after another, as when the sender dropped the
    /// frames between) gets its own differences as custom fields, on every packet, and reads back as the truth.
    @Test func aFrameOffThePatternCarriesItsOwnDifferences() throws {
        let elements = try Self.describe([(true, 0), (false, 2), (false, 0)])
        let odd = elements[2]
        #expect(odd.templateID == 0)  // the first base-layer template, its differences overridden
        #expect(!odd.firstPacketFields.isEmpty && odd.firstPacketFields == odd.laterPacketFields)
        let parsed = try DependencyDescriptor(parsing: Self.bytes(odd), structure: Self.l1t3)
        #expect(parsed.customFrameDiffs == [2])  // the previous base-layer frame, two frames back
        #expect(parsed.customChainDiffs == [2])
        #expect(parsed.frameNumber == 0x1236)
    }

    @Test func frameNumbersWrapAndLayersOutOfRangeAreClamped() throws {
        let elements = try Self.describe([(true, 0), (false, 7), (false, -3)], first: 0xFFFF)
        #expect(elements.map(\.frameNumber) == [0xFFFF, 0, 1])
        #expect(elements[1].templateID == 3)  // layer 7 described as layer 2, the structure's highest
        #expect(try DependencyDescriptor(parsing: Self.bytes(elements[2]), structure: Self.l1t3).customFrameDiffs == [2])
    }

    // MARK: On packets

    static let transportCC = try! RTPHeaderExtension.oneByte([TransportSequenceNumber.element(id: 3, value: SequenceNumber(0))])

    /// The descriptor on each packet of a 4-packet keyframe (SPS and PPS in a STAP-A, the IDR in three FU-As) and a
    /// 1-packet frame, read back from the packets.
    @Test func everyPacketCarriesItAndOnlyTheFirstTheStructure() throws {
        var p = try H264Packetizer(
            ssrc: SSRC(0x0102_0304), payloadType: PayloadType(96), firstSequenceNumber: SequenceNumber(7),
            srtpTrailerSize: 0, headerExtension: Self.transportCC,
            extensionIDs: RTPPacketExtensionIDs(dependencyDescriptor: 9))
        // 12 + 4 + (3 + 17) rounded to words: the limit reserves the largest descriptor.
        #expect(p.limit.rtpHeaderSize == 36)
        let elements = try Self.describe([(true, 0), (false, 2)])
        let keyframe = frame([nal(0x67, size: 10), nal(0x68, size: 4), nal(0x65, size: 2500)])
        let small = frame([nal(0x41, size: 300)], timestamp: 3000)
        var packets: [[UInt8]] = []
        var plans: [H264PacketPlan] = []
        let writer = p
        for (access, element) in [(keyframe, elements[0]), (small, elements[1])] {
            try p.plan(access, timestamp: RTPTimestamp(UInt32(access.timestamp)),
                       extensions: RTPPacketExtensions(dependencyDescriptor: element)) { plan in
                var bytes = [UInt8](repeating: 0xAA, count: plan.size)
                let size = try bytes.withUnsafeMutableBytes { try writer.write(plan, of: access, into: $0) }
                packets.append(Array(bytes[0..<size]))
                plans.append(plan)
            }
        }
        #expect(packets.count == 5)
        var structure: DependencyStructure?
        var read: [DependencyDescriptor] = []
        for packet in packets {
            let descriptor = try #require(try packet.withUnsafeBytes {
                try DependencyDescriptor.read(from: $0, id: 9, structure: structure)
            })
            if let attached = descriptor.structure { structure = attached }
            read.append(descriptor)
            #expect(try !RTPPacketView(parsing: packet).payloadRange.isEmpty)
        }
        #expect(read.map(\.startOfFrame) == [true, false, false, false, true])
        #expect(read.map(\.endOfFrame) == [false, false, false, true, true])
        #expect(read.map { $0.structure != nil } == [true, false, false, false, false])
        #expect(read.map(\.frameNumber) == [0x1234, 0x1234, 0x1234, 0x1234, 0x1235])
        #expect(read.map(\.templateID) == [0, 0, 0, 0, 3])
        #expect(structure == Self.l1t3)
        // The first packet's header: the transport-wide number, then the 16-byte descriptor (one-byte form, L = 15),
        // its first byte 0x80 (start of frame, not the end).
        #expect(Array(packets[0][12..<36]) == hex("BEDE 0005 31 0000 9F 801234800214eaa860414d1410208426"))
        // Later packets take 3 bytes: 12 + 4 + (3 + 4) rounded to 8.
        #expect(plans[1].headerSize == 24 && plans[4].headerSize == 24)
        #expect(Array(packets[4][12..<24]) == hex("BEDE 0002 31 0000 92 c31235 00"))
        // A retransmission carries the same descriptor (RFC 4588: the header extension is the original's).
        var rtx = [UInt8](repeating: 0, count: plans[0].size + 2)
        _ = try rtx.withUnsafeMutableBytes {
            try writer.writeRetransmission(
                plans[0], of: keyframe, ssrc: SSRC(5), payloadType: PayloadType(97), sequenceNumber: SequenceNumber(1),
                into: $0)
        }
        let resent = try rtx.withUnsafeBytes { try DependencyDescriptor.read(from: $0, id: 9, structure: nil) }
        #expect(resent == read[0])
    }

    @Test func aDescriptorTooLongForTheOneByteFormIsRefused() throws {
        var structure = Self.l1t3
        structure.resolutions = [DependencyStructure.RenderResolution(width: 1280, height: 720)]  // 4 more bytes
        var sequence = DependencyDescriptorSequence(structure: structure, firstFrameNumber: 0)
        #expect(throws: DependencyDescriptorError.self) { try sequence.describe(isKeyframe: true, temporalLayer: 0) }
        #expect(sequence.framesDescribed == 0)
        // The packetizer leaves out an element that does not fit the one-byte form rather than write a broken one.
        let p = try H264Packetizer(
            ssrc: SSRC(1), payloadType: PayloadType(96), firstSequenceNumber: SequenceNumber(0), srtpTrailerSize: 0,
            extensionIDs: RTPPacketExtensionIDs(dependencyDescriptor: 9))
        var copy = p
        let long = DependencyDescriptorElement(templateID: 0, frameNumber: 0, firstPacketFields: Array(repeating: 0, count: 14))
        try copy.plan(frame([nal(0x41, size: 100)]), timestamp: RTPTimestamp(0),
                      extensions: RTPPacketExtensions(dependencyDescriptor: long)) { plan in
            #expect(plan.extensions.dependencyDescriptor == nil)
        }
    }
}

/// A simulcast stream's fixed block (issue 23, item 2): media packets carry the mid and `rtp-stream-id`, their
/// retransmissions `repaired-rtp-stream-id` in its place (RFC 8852 section 3.2), with the per-frame elements after it.
@Suite struct RepairedStreamIDTests {
    static func block(_ ridID: UInt8) throws -> RTPHeaderExtension {
        try RTPHeaderExtension.oneByte([
            TransportSequenceNumber.element(id: 3, value: SequenceNumber(0)),
            RTPHeaderExtensionElement(id: 7, data: Array("0".utf8)),
            RTPHeaderExtensionElement(id: ridID, data: Array("f".utf8)),
        ])
    }

    @Test func retransmissionsCarryTheRepairedStreamID() throws {
        var p = try H264Packetizer(
            ssrc: SSRC(1), payloadType: PayloadType(96), firstSequenceNumber: SequenceNumber(10), srtpTrailerSize: 0,
            headerExtension: try Self.block(8), extensionIDs: RTPPacketExtensionIDs(dependencyDescriptor: 6),
            retransmissionHeaderExtension: try Self.block(9))
        let access = frame([nal(0x41, size: 200)])
        let element = DependencyDescriptorElement(templateID: 1, frameNumber: 5)
        var plans: [H264PacketPlan] = []
        try p.plan(access, timestamp: RTPTimestamp(0), extensions: RTPPacketExtensions(dependencyDescriptor: element)) {
            plans.append($0)
        }
        let plan = try #require(plans.first)
        var media = [UInt8](repeating: 0, count: plan.size)
        var rtx = [UInt8](repeating: 0, count: plan.size + 2)
        _ = try media.withUnsafeMutableBytes { try p.write(plan, of: access, into: $0) }
        _ = try rtx.withUnsafeMutableBytes {
            try p.writeRetransmission(plan, of: access, ssrc: SSRC(2), payloadType: PayloadType(97),
                                      sequenceNumber: SequenceNumber(1), into: $0)
        }
        let mediaElements = try #require(try RTPPacketView(parsing: media).header.headerExtension?.elements())
        let rtxElements = try #require(try RTPPacketView(parsing: rtx).header.headerExtension?.elements())
        #expect(mediaElements.map(\.id) == [3, 7, 8, 6])
        #expect(rtxElements.map(\.id) == [3, 7, 9, 6])
        #expect(rtxElements.first { $0.id == 9 }?.data == Array("f".utf8))
        #expect(rtxElements.first { $0.id == 6 }?.data == mediaElements.first { $0.id == 6 }?.data)
        // A block of another size or an ID a per-frame element uses is refused.
        let longer = try RTPHeaderExtension.oneByte([TransportSequenceNumber.element(id: 3, value: SequenceNumber(0))])
        for bad in [longer, try Self.block(6)] {
            #expect(throws: H264PayloadError.invalidExtensionIDs) {
                try H264Packetizer(
                    ssrc: SSRC(1), payloadType: PayloadType(96), firstSequenceNumber: SequenceNumber(10),
                    headerExtension: try Self.block(8), extensionIDs: RTPPacketExtensionIDs(dependencyDescriptor: 6),
                    retransmissionHeaderExtension: bad)
            }
        }
    }
}
