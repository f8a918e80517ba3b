/// The rate at which packets reached the receiver, from transport-wide feedback: bytes acknowledged over a sliding
/// window of arrival time (a simpler stand-in for libwebrtc's `BitrateEstimator`). Times in ms, rates in bit/s.
struct AckedBitrateEstimator: Sendable {
    /// The window.
    static let window = 500.0
    /// Acknowledged packets remembered (enough for 500 ms at ~20 Mbit/s of 1,200-byte packets).
    static let capacity = 1024

    private var arrivals = [Double](repeating: 0, count: capacity)
    private var sizes = [Int](repeating: 0, count: capacity)
    private var head = 0
    private var count = 0
    private var firstArrival: Double?

    mutating func add(arrival: Double, size: Int) {
        if firstArrival == nil { firstArrival = arrival }
        arrivals[(head + count) % Self.capacity] = arrival
        sizes[(head + count) % Self.capacity] = size
        if count == Self.capacity { head = (head + 1) % Self.capacity } else { count += 1 }
    }

    /// The rate over the window ending at the latest arrival, nil until a whole window has been seen.
    var bitrate: Double? {
        guard count > 0, let first = firstArrival else { return nil }
        let latest = arrivals[(head + count - 1) % Self.capacity]
        guard latest - first >= Self.window else { return nil }
        var bytes = 0
        var i = count - 1
        while i >= 0 {
            let index = (head + i) % Self.capacity
            if arrivals[index] <= latest - Self.window { break }
            bytes += sizes[index]
            i -= 1
        }
        return Double(bytes) * 8 / (Self.window / 1000)
    }
}
