/// One simulcast encoding's size and bitrates, as libwebrtc configures a layer (`simulcast.cc`, `kSimulcastFormats`).
public struct SimulcastLayer: Hashable, Sendable {
    /// Picture width in pixels.
    public var width: Int
    /// Picture height in pixels.
    public var height: Int
    /// The least bitrate the layer is sent at (below it the layer is paused), bit/s.
    public var minimumBitrate: Int
    /// The bitrate the layer gets before any higher layer gets anything, bit/s.
    public var targetBitrate: Int
    /// The most the layer gets (only the highest active layer goes past its target), bit/s.
    public var maximumBitrate: Int

    /// Creates a layer.
    /// - Parameters:
    ///   - width: picture width.
    ///   - height: picture height.
    ///   - minimumBitrate: the least bitrate it is sent at.
    ///   - targetBitrate: its target.
    ///   - maximumBitrate: its most.
    public init(width: Int, height: Int, minimumBitrate: Int, targetBitrate: Int, maximumBitrate: Int) {
        self.width = width
        self.height = height
        self.minimumBitrate = minimumBitrate
        self.targetBitrate = targetBitrate
        self.maximumBitrate = maximumBitrate
    }

    /// libwebrtc's table (`kSimulcastFormats`): width, height, max, target, min kbit/s, largest first; a layer takes
    /// the first row whose pixel count it reaches.
    static let formats: [(width: Int, height: Int, maximum: Int, target: Int, minimum: Int)] = [
        (1920, 1080, 5000, 4000, 800),
        (1280, 720, 2500, 2500, 600),
        (960, 540, 1200, 1200, 350),
        (640, 360, 700, 500, 150),
        (480, 270, 450, 350, 150),
        (320, 180, 200, 150, 30),
        (0, 0, 200, 150, 30),
    ]

    /// The layer of a picture of this size with libwebrtc's bitrates for it.
    /// - Parameters:
    ///   - width: picture width.
    ///   - height: picture height.
    /// - Returns: the layer.
    public static func standard(width: Int, height: Int) -> SimulcastLayer {
        let pixels = width.multipliedReportingOverflow(by: height)
        let row = formats.first { pixels.overflow || pixels.partialValue >= $0.width * $0.height } ?? formats[formats.count - 1]
        return SimulcastLayer(
            width: width, height: height, minimumBitrate: row.minimum * 1000, targetBitrate: row.target * 1000,
            maximumBitrate: row.maximum * 1000)
    }

    /// The layers of a stream of `width` x `height` with `count` encodings, lowest first: each half the size of the
    /// one above (rounded down to even sizes), as libwebrtc's default `scaleResolutionDownBy` 4, 2, 1.
    /// - Parameters:
    ///   - width: the full picture's width.
    ///   - height: the full picture's height.
    ///   - count: the encodings (1-3).
    /// - Returns: the layers, lowest first.
    public static func standardLayers(width: Int, height: Int, count: Int) -> [SimulcastLayer] {
        (0..<max(count, 0)).reversed().map { shift in
            standard(width: max(2, width >> shift & ~1), height: max(2, height >> shift & ~1))
        }
    }
}

/// Splits one bitrate over simulcast layers the way libwebrtc's `SimulcastRateAllocator` does
/// (`DistributeAllocationToSimulcastLayers`): the lowest layer always gets at least its minimum; then each layer,
/// lowest first, gets up to its target before the next gets anything, a layer that the rest cannot bring to its
/// minimum is paused along with every layer above it, and what is left goes to the highest layer sent, up to its
/// maximum. A paused layer comes back only when the rest reaches `enableHysteresis` times its minimum (at most its
/// target), so that a bitrate hovering at the minimum does not switch it on and off with every estimate. Pure.
public struct SimulcastRateAllocator: Sendable {
    /// The layers, lowest first.
    public let layers: [SimulcastLayer]
    /// Which layers the last allocation sent.
    public private(set) var enabled: [Bool]
    private var allocated = false

    /// libwebrtc's `RateControlSettings` video hysteresis: a paused layer needs 1.2 times its minimum to come back.
    public static let enableHysteresis = 1.2

    /// Creates an allocator.
    /// - Parameter layers: the layers, lowest first.
    public init(layers: [SimulcastLayer]) {
        self.layers = layers
        enabled = Array(repeating: false, count: layers.count)
    }

    /// Splits `total` over the layers.
    /// - Parameter total: the bitrate to split, bit/s (negative counts as 0).
    /// - Returns: each layer's bitrate, lowest first; 0 for a paused layer (the lowest layer is never 0).
    public mutating func allocate(_ total: Int) -> [Int] {
        var result = Array(repeating: 0, count: layers.count)
        guard let first = layers.first else { return result }
        var left = max(total, first.minimumBitrate)
        var top: Int?
        for (index, layer) in layers.enumerated() {
            var minimum = layer.minimumBitrate
            if allocated, !enabled[index] {
                minimum = min(Int((Double(minimum) * Self.enableHysteresis).rounded()), layer.targetBitrate)
            }
            if index > 0, left < minimum { break }
            let share = min(left, layer.targetBitrate)
            result[index] = share
            left -= share
            top = index
        }
        if let top, left > 0 {
            result[top] += min(left, max(0, layers[top].maximumBitrate - result[top]))
        }
        allocated = true
        enabled = result.map { $0 > 0 }
        return result
    }
}
