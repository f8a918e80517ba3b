/// Bytes over a sliding window of time (a simpler stand-in for libwebrtc's `BitrateEstimator`): fed with arrival
/// times from transport-wide feedback it is the acknowledged throughput, fed with send times the rate the sender
/// offered (`DelayBasedBandwidthEstimator`). Times in ms, rates in bit/s.
struct WindowedBitrateEstimator: Sendable {
    /// The window.
    static let window = 500.0
    /// Packets remembered (enough for 500 ms at ~20 Mbit/s of 1,200-byte packets).
    static let capacity = 1024

    private var times = [Double](repeating: 0, count: capacity)
    private var sizes = [Int](repeating: 0, count: capacity)
    private var head = 0
    private var count = 0
    private var firstTime: Double?

    mutating func add(at time: Double, size: Int) {
        if firstTime == nil { firstTime = time }
        times[(head + count) % Self.capacity] = time
        sizes[(head + count) % Self.capacity] = size
        if count == Self.capacity { head = (head + 1) % Self.capacity } else { count += 1 }
    }

    /// The rate over the window ending at the latest entry, nil until a whole window has been seen.
    var bitrate: Double? { bitrate(over: Self.window) }

    /// The rate over the last `window` ms ending at the latest entry (at most `Self.window`, positive), nil until a
    /// whole window has been seen.
    func bitrate(over window: Double) -> Double? {
        guard count > 0, let first = firstTime, window > 0 else { return nil }
        let window = min(window, Self.window)
        let latest = times[(head + count - 1) % Self.capacity]
        guard latest - first >= window else { return nil }
        var bytes = 0
        var i = count - 1
        while i >= 0 {
            let index = (head + i) % Self.capacity
            if times[index] <= latest - window { break }
            bytes += sizes[index]
            i -= 1
        }
        return Double(bytes) * 8 / (window / 1000)
    }
}
