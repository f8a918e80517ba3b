import CongestionControl
import Testing
@testable import WHEP

/// Which simulcast layer a WHEP viewer's estimate carries (issue 23, item 4).
@Suite struct LayerSelectorTests {
    static let layers = SimulcastLayer.standardLayers(width: 1280, height: 720, count: 3)  // minimums 30k, 150k, 600k

    @Test(arguments: [
        (100_000, 0, 0), (179_999, 0, 0), (180_000, 0, 1),  // up at 1.2 x 150k
        (719_999, 1, 1), (720_000, 1, 2),  // up at 1.2 x 600k
        (600_000, 2, 2), (599_999, 2, 1),  // down below the minimum itself
        (150_000, 1, 1), (149_999, 1, 0),
        (5_000_000, 0, 2), (0, 2, 0), (-1, 2, 0),
    ])
    func theHighestLayerTheEstimateCoversWithHysteresisUp(estimate: Int, current: Int, expected: Int) {
        #expect(LayerSelector.layer(for: estimate, current: current, layers: Self.layers) == expected)
    }

    @Test func noLayersGiveTheFirst() {
        #expect(LayerSelector.layer(for: 1_000_000, current: 0, layers: []) == 0)
    }
}

/// When a viewer moves down at once rather than after `LayerSelector.downHold`.
@Suite struct LayerSelectorUrgencyTests {
    @Test func onlyFarBelowTheLayersMinimumIsUrgent() {
        let layers = LayerSelectorTests.layers
        #expect(LayerSelector.isFarBelow(299_999, layer: 2, layers: layers))  // under half of 600k
        #expect(!LayerSelector.isFarBelow(300_000, layer: 2, layers: layers))
        #expect(!LayerSelector.isFarBelow(124_000, layer: 1, layers: layers))  // a dip after a loss: it waits
        #expect(LayerSelector.isFarBelow(74_999, layer: 1, layers: layers))
        #expect(!LayerSelector.isFarBelow(0, layer: 0, layers: layers))  // nothing lower
        #expect(!LayerSelector.isFarBelow(0, layer: 5, layers: layers))
        #expect(LayerSelector.upHold > LayerSelector.downHold)
    }
}
