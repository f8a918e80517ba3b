import CongestionControl
import Testing

/// Simulcast layers and the split of one bitrate over them (issue 23, item 2), as libwebrtc's `simulcast.cc` and
/// `SimulcastRateAllocator` do it.
@Suite struct SimulcastRateAllocatorTests {
    static let layers = SimulcastLayer.standardLayers(width: 1280, height: 720, count: 3)

    @Test func sevenTwentyPeeGivesLibwebrtcsThreeLayers() {
        #expect(Self.layers.map { "\($0.width)x\($0.height)" } == ["320x180", "640x360", "1280x720"])
        #expect(Self.layers.map(\.minimumBitrate) == [30_000, 150_000, 600_000])
        #expect(Self.layers.map(\.targetBitrate) == [150_000, 500_000, 2_500_000])
        #expect(Self.layers.map(\.maximumBitrate) == [200_000, 700_000, 2_500_000])
        // Between the table's rows a layer takes the row it reaches; odd sizes are made even.
        #expect(SimulcastLayer.standard(width: 1000, height: 600).targetBitrate == 1_200_000)
        #expect(SimulcastLayer.standardLayers(width: 642, height: 362, count: 2).map { "\($0.width)x\($0.height)" }
            == ["320x180", "642x362"])
        #expect(SimulcastLayer.standard(width: .max, height: .max).targetBitrate == 4_000_000)
        #expect(SimulcastLayer.standardLayers(width: 1280, height: 720, count: 0).isEmpty)
    }

    /// Lowest first, each to its target before the next starts; the rest to the highest layer sent, up to its most.
    @Test(arguments: [
        (10_000, [30_000, 0, 0]),  // the lowest layer is never below its minimum
        (100_000, [100_000, 0, 0]),
        (640_000, [150_000, 490_000, 0]),  // 490k: the 180p layer's target, the rest up to the 360p layer's 700k
        (1_000_000, [150_000, 700_000, 0]),  // 150k left over: below the 720p layer's 600k minimum
        (1_250_000, [150_000, 500_000, 600_000]),
        (2_500_000, [150_000, 500_000, 1_850_000]),
        (5_000_000, [150_000, 500_000, 2_500_000]),
        (-5, [30_000, 0, 0]),
    ])
    func oneBitrateIsSplitLowestFirst(total: Int, expected: [Int]) {
        var allocator = SimulcastRateAllocator(layers: Self.layers)
        #expect(allocator.allocate(total) == expected)
        #expect(allocator.enabled == expected.map { $0 > 0 })
    }

    /// A paused layer comes back only at 1.2 times its minimum; one that is on stays on down to its minimum.
    @Test func aPausedLayerNeedsTheHysteresisToComeBack() {
        var allocator = SimulcastRateAllocator(layers: Self.layers)
        #expect(allocator.allocate(2_500_000) == [150_000, 500_000, 1_850_000])
        #expect(allocator.allocate(1_250_000) == [150_000, 500_000, 600_000])  // on: its minimum is enough
        #expect(allocator.allocate(1_240_000) == [150_000, 700_000, 0])  // paused below it
        #expect(allocator.allocate(1_300_000) == [150_000, 700_000, 0])  // 650k left: below 720k
        #expect(allocator.allocate(1_370_000) == [150_000, 500_000, 720_000])
        #expect(allocator.enabled == [true, true, true])
    }

    @Test func noLayersGiveNothing() {
        var allocator = SimulcastRateAllocator(layers: [])
        #expect(allocator.allocate(1_000_000).isEmpty)
    }
}
