import Testing
@testable import Codec
@testable import Sender

/// Each simulcast layer's encoder is the single-layer encoder at the layer's size and target: the operator's other
/// settings (the denoiser among them: without it the lower layers lost up to 2.4 dB, run-simulcast-quality.sh) stay,
/// and the layers below the top one preprocess lightly (the denoiser's chroma smoothing only, no background detection).
@Suite struct SimulcastEncoderConfigurationTests {
    static func configuration(denoise: Bool) -> SenderConfiguration {
        var encoder = EncoderConfiguration(width: 1280, height: 720, frameRate: 30, targetBitrate: 3_200_000)
        encoder.denoise = denoise
        encoder.maxBitrate = 4_000_000
        encoder.qpRange = 20...45
        var configuration = SenderConfiguration(peerHost: "127.0.0.1", peerPort: 9, encoder: encoder)
        configuration.simulcast = SimulcastEncoding.standard(width: 1280, height: 720, count: 3)
        configuration.degradationPreference = .maintainFramerate
        configuration.startBitrate = 300_000
        return configuration
    }

    @Test(arguments: [true, false])
    func everyLayerKeepsTheOperatorsSettingsAtItsOwnSizeAndTarget(denoise: Bool) {
        let base = Self.configuration(denoise: denoise)
        let layers = base.encoderConfigurations
        #expect(layers.count == 3)
        for (layer, encoding) in zip(layers, base.simulcast) {
            #expect(layer.encoder.width == encoding.layer.width && layer.encoder.height == encoding.layer.height)
            #expect(layer.encoder.targetBitrate == encoding.layer.targetBitrate)
            #expect(layer.encoder.maxBitrate == nil)  // the 1.5x ceiling of the layer's own target
            #expect(layer.encoder.denoise == denoise)
            #expect(layer.encoder.qpRange == 20...45)
            #expect(layer.encoder.frameRate == 30)
            #expect(layer.degradationPreference == .maintainResolution)
            #expect(layer.startBitrate == nil)
        }
        #expect(layers.map(\.encoder.lightPreprocessing) == [true, true, false])
        #expect(layers.map(\.encoder.width) == [320, 640, 1280])
        // Without simulcast the configuration is its own one encoder.
        var single = base
        single.simulcast = []
        #expect(single.encoderConfigurations.count == 1)
        #expect(single.encoderConfigurations[0].encoder.width == 1280)
        #expect(single.encoderConfigurations[0].encoder.lightPreprocessing == false)
    }
}
