import CongestionControl

/// Which simulcast layer a viewer's estimate carries (a WHEP viewer of `serve --simulcast`): the highest layer whose
/// minimum bitrate the estimate covers, never below the lowest. Moving up needs `upHysteresis` times the layer's
/// minimum (libwebrtc's 1.2 for enabling a layer), so that an estimate at the edge does not switch back and forth;
/// moving down happens as soon as the estimate is below the current layer's minimum. Pure.
enum LayerSelector {
    /// The margin over a higher layer's minimum before a viewer moves up.
    static let upHysteresis = SimulcastRateAllocator.enableHysteresis

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
