import Testing
import H264
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
        let whole = try H264Decoder()
        let thinned = try H264Decoder()
        var full = I420Frame(width: 16, height: 16)
        var thin = I420Frame(width: 16, height: 16)
        var compared = 0
        for frame in frames {
            let shownWhole = try whole.decode(frame.bytes, into: &full)
            guard frame.temporalLayer <= keep else { continue }
            let shownThinned = try thinned.decode(frame.bytes, into: &thin)
            #expect(shownWhole && shownThinned, "frame at \(frame.timestamp) not shown")
            guard shownWhole, shownThinned else { continue }
            #expect(thin.width == Self.size.width && thin.height == Self.size.height)
            let psnr = try PSNR(reference: full, distorted: thin).y
            #expect(psnr.isInfinite || psnr > 60, "frame at \(frame.timestamp): \(psnr) dB from the whole stream's picture")
            compared += 1
        }
        let step = keep == 0 ? (layers == 3 ? 4 : 2) : 2
        #expect(compared == 60 / step)
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
