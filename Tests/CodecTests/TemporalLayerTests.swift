import Testing
import H264
import RTP
import Video
@testable import Codec

/// Temporal layers (L1T2, L1T3; issue 23 item 1): each frame's layer follows OpenH264's pattern, a frame is never
/// predicted from a higher layer (what a forwarder drops leaves a stream that decodes at full quality), and the
/// stream stays plain AVC.
@Suite struct TemporalLayerTests {
    static let size = (width: 320, height: 240)

    /// The layers of `count` frames of the pattern at 300 kbit/s, no frame skipped.
    static func encode(layers: Int, frames count: Int, forceAt: Set<Int> = []) throws -> [EncoderTestSupport.Output] {
        var configuration = EncoderConfiguration(width: size.width, height: size.height, targetBitrate: 300_000)
        configuration.temporalLayers = layers
        configuration.frameSkipping = false
        return try EncoderTestSupport.run(configuration, frames: count, forceAt: forceAt)
    }

    @Test(arguments: [(1, [0, 0, 0, 0, 0, 0, 0, 0]), (2, [0, 1, 0, 1, 0, 1, 0, 1]), (3, [0, 2, 1, 2, 0, 2, 1, 2])])
    func eachFrameCarriesItsLayer(layers: Int, pattern: [Int]) throws {
        let outputs = try Self.encode(layers: layers, frames: 40)
        let frames = outputs.compactMap(\.frame)
        #expect(frames.count == 40)
        let expected = (0..<frames.count).map { pattern[$0 % pattern.count] }
        #expect(frames.map(\.temporalLayer) == expected)
        // Plain AVC: no prefix NAL units (type 14) or SVC extensions (type 20) for a decoder to stumble on.
        #expect(!frames.contains { $0.nalUnits.contains { $0.header.type.rawValue == 14 || $0.header.type.rawValue == 20 } })
    }

    /// A keyframe asked for in the middle starts the pattern again at the base layer.
    @Test func aForcedKeyframeIsInTheBaseLayer() throws {
        let frames = try Self.encode(layers: 3, frames: 20, forceAt: [9]).compactMap(\.frame)
        #expect(frames[9].isKeyframe)
        #expect(frames[9].temporalLayer == 0)
    }

    /// Every frame above `keep` dropped, as a forwarder thins the stream: the rest decodes, each picture matching the
    /// one decoded from the whole stream at the same position (nothing kept was predicted from a dropped frame).
    @Test(arguments: [(3, 1), (3, 0), (2, 0)])
    func droppingTheUpperLayersLeavesAStreamThatDecodes(layers: Int, keep: Int) throws {
        let frames = try Self.encode(layers: layers, frames: 60).compactMap(\.frame)
        #expect(frames.count == 60)
        let kept = { (frame: EncodedFrame) in frame.temporalLayer <= keep }
        let compared = try Self.expectThinnedMatchesWhole(frames, kept: kept, thinned: frames.filter(kept).map(\.bytes))
        let step = keep == 0 ? (layers == 3 ? 4 : 2) : 2
        #expect(compared == 60 / step)
    }

    /// The same thinning done by an SFU that reads nothing but the dependency descriptor: the frames are described
    /// (`DependencyDescriptorSequence`) and packetized with it, the forwarder learns the structure from the keyframes'
    /// first packets, drops every packet whose template is above `keep`, renumbers the rest (as a forwarder must) and
    /// the receiver reassembles and decodes them: every kept frame arrives whole and shows the whole stream's picture,
    /// across a keyframe forced in the middle of the pattern.
    @Test(arguments: [(3, 1), (3, 0), (2, 0), (3, 2)])
    func aForwarderReadingOnlyTheDescriptorThinsTheStream(layers: Int, keep: Int) throws {
        let frames = try Self.encode(layers: layers, frames: 48, forceAt: [21]).compactMap(\.frame)
        #expect(frames.count == 48)
        let structure = try #require(DependencyStructure.singleSpatialLayer(temporalLayers: layers))
        var descriptors = DependencyDescriptorSequence(structure: structure, firstFrameNumber: 0xFFF0)
        var packetizer = try H264Packetizer(
            ssrc: SSRC(7), payloadType: PayloadType(96), firstSequenceNumber: SequenceNumber(0xFFF0),
            extensionIDs: RTPPacketExtensionIDs(dependencyDescriptor: 4))
        // The forwarder.
        var known: DependencyStructure?
        var outgoing = SequenceNumber(100)
        var forwarded: [[UInt8]] = []
        var keptTimestamps: [Int64] = []
        for frame in frames {
            let element = try descriptors.describe(isKeyframe: frame.isKeyframe, temporalLayer: frame.temporalLayer)
            var keptFrame = false
            for var packet in try packetizer.packetize(frame, timestamp: RTPTimestamp(UInt32(frame.timestamp)),
                                                       extensions: RTPPacketExtensions(dependencyDescriptor: element)) {
                let descriptor = try #require(try packet.withUnsafeBytes {
                    try DependencyDescriptor.read(from: $0, id: 4, structure: known)
                })
                if let attached = descriptor.structure { known = attached }
                let layer = try #require(known).templates[try #require(known).templateIndex(of: descriptor.templateID)]
                    .temporalID
                #expect(layer == frame.temporalLayer || frame.isKeyframe)
                guard layer <= keep else { continue }
                packet[2] = UInt8(outgoing.rawValue >> 8)
                packet[3] = UInt8(outgoing.rawValue & 0xFF)
                outgoing += 1
                forwarded.append(packet)
                keptFrame = true
            }
            if keptFrame { keptTimestamps.append(frame.timestamp) }
        }
        // The receiver.
        var depacketizer = H264Depacketizer()
        var received: [EncodedFrame] = []
        for packet in forwarded {
            for event in depacketizer.push(packet) {
                if case .frame(let frame) = event { received.append(frame.frame) } else { Issue.record("\(event)") }
            }
        }
        for event in depacketizer.flush() {
            if case .frame(let frame) = event { received.append(frame.frame) } else { Issue.record("\(event)") }
        }
        let step = keep >= layers - 1 ? 1 : keep == 0 ? (layers == 3 ? 4 : 2) : 2
        #expect(keptTimestamps.count >= 48 / step)
        #expect(received.count == keptTimestamps.count)
        let compared = try Self.expectThinnedMatchesWhole(
            frames, kept: { keptTimestamps.contains($0.timestamp) }, thinned: received.map(\.bytes))
        #expect(compared == received.count)
    }

    /// Decodes `frames` whole and, beside them, `thinned` (what a receiver got of each kept frame, in order): each
    /// thinned picture must be shown, of the encoded size, and identical to the whole stream's at the same position.
    /// - Returns: how many pictures were compared.
    static func expectThinnedMatchesWhole(
        _ frames: [EncodedFrame], kept: (EncodedFrame) -> Bool, thinned: [[UInt8]]
    ) throws -> Int {
        let whole = try H264Decoder()
        let thinDecoder = try H264Decoder()
        var full = I420Frame(width: 16, height: 16)
        var thin = I420Frame(width: 16, height: 16)
        var next = 0
        var compared = 0
        for frame in frames {
            let shownWhole = try whole.decode(frame.bytes, into: &full)
            guard next < thinned.count, kept(frame) else { continue }
            let shownThinned = try thinDecoder.decode(thinned[next], into: &thin)
            next += 1
            #expect(shownWhole && shownThinned, "frame at \(frame.timestamp) not shown")
            guard shownWhole, shownThinned else { continue }
            #expect(thin.width == size.width && thin.height == size.height)
            let psnr = try PSNR(reference: full, distorted: thin).y
            #expect(psnr.isInfinite || psnr > 60, "frame at \(frame.timestamp): \(psnr) dB from the whole stream's picture")
            compared += 1
        }
        return compared
    }

    @Test(arguments: [0, 4, -1, Int.max])
    func layerCountsOutsideOneToThreeAreRefused(layers: Int) {
        var configuration = EncoderConfiguration(width: 320, height: 240)
        configuration.temporalLayers = layers
        #expect(throws: EncoderConfigurationError.temporalLayersOutOfRange(layers, supported: 1...3)) {
            try configuration.validate()
        }
    }
}
