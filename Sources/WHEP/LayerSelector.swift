import CongestionControl

/// Which simulcast layer a viewer's estimate carries (a WHEP viewer of `serve --simulcast`): the highest layer whose
/// minimum bitrate the estimate covers, never below the lowest. Moving up needs `upHysteresis` times the layer's
/// minimum (libwebrtc's 1.2 for enabling a layer), so that an estimate at the edge does not switch back and forth.
/// A move starts only once the estimate has wanted it for `upHold` (up) or `downHold` (down), or at once when the
/// estimate is far below the current layer (`isFarBelow`): measured behind a 400 kbit/s policer, probes that pass the
/// policer's burst and the retransmissions' share after a loss moved a viewer up and down within a second, each move
/// a keyframe and a freeze (Tests/Benchmarks/results/mixed-audience.md). Pure.
enum LayerSelector {
    /// The margin over a higher layer's minimum before a viewer moves up.
    static let upHysteresis = SimulcastRateAllocator.enableHysteresis
    /// How long the estimate must want a higher layer before the viewer moves up.
    static let upHold = Duration.seconds(2)
    /// How long the estimate must want a lower layer before the viewer moves down (unless far below).
    static let downHold = Duration.seconds(1)

    /// Whether an estimate is under half the current layer's minimum: the viewer moves down at once.
    /// - Parameters:
    ///   - estimate: the viewer's target, bit/s.
    ///   - layer: its layer.
    ///   - layers: the layers, lowest first.
    static func isFarBelow(_ estimate: Int, layer: Int, layers: [SimulcastLayer]) -> Bool {
        layer > 0 && layers.indices.contains(layer) && estimate < layers[layer].minimumBitrate / 2
    }

    /// The layer for an estimate.
    /// - Parameters:
    ///   - estimate: the viewer's target, bit/s.
    ///   - current: the layer it is on (or moving to).
    ///   - layers: the layers, lowest first.
    /// - Returns: the layer's index (0 when there are no layers).
    static func layer(for estimate: Int, current: Int, layers: [SimulcastLayer]) -> Int {
        guard !layers.isEmpty else { return 0 }
        var chosen = 0
        for (index, layer) in layers.enumerated().dropFirst() {
            let needed = index > current
                ? Int((Double(layer.minimumBitrate) * upHysteresis).rounded()) : layer.minimumBitrate
            if estimate >= needed { chosen = index }
        }
        return chosen
    }
}
