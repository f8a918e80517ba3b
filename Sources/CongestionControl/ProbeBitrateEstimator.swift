/// The rate a probe cluster got through at, from transport-wide feedback (libwebrtc `ProbeBitrateEstimator`):
/// the send rate over the cluster's send times (without its last packet's bytes) and the receive rate over its
/// arrival times (without the first packet's bytes); the result is the lower of the two and the probe's own rate.
/// A cluster counts once at least `minimumPackets` of its packets are acknowledged. Times in ms, rates in bit/s.
struct ProbeBitrateEstimator: Sendable {
    /// Acknowledged packets needed for a result (libwebrtc: 80 % of the 5 sent).
    static let minimumPackets = 4
    /// A receive rate under this fraction of the send rate means the probe saturated the link.
    static let unsaturatedRatio = 0.9
    /// The result for a saturated link: this fraction of the receive rate.
    static let targetUtilization = 0.95
    /// The shortest send or receive span taken as measured (shorter: that side is not the limit).
    static let minimumSpan = 1.0

    private struct Cluster: Sendable {
        var id = 0
        var bitrate = 0
        var packets = 0
        var bytes = 0
        var firstSend = Double.infinity
        var lastSend = -Double.infinity
        var lastSendSize = 0
        var firstArrival = Double.infinity
        var firstArrivalSize = 0
        var lastArrival = -Double.infinity
        var done = false
    }

    private var cluster = Cluster()

    /// Starts measuring a new cluster (the previous one is forgotten).
    mutating func start(cluster id: Int, bitrate: Int) {
        cluster = Cluster(id: id, bitrate: bitrate)
    }

    /// Adds an acknowledged packet of cluster `id`.
    /// - Returns: the cluster's rate once enough of it is acknowledged (once per cluster).
    mutating func add(cluster id: Int, send: Double, arrival: Double, size: Int) -> Int? {
        guard id == cluster.id, !cluster.done else { return nil }
        cluster.packets += 1
        cluster.bytes += size
        if send < cluster.firstSend { cluster.firstSend = send }
        if send >= cluster.lastSend { cluster.lastSend = send; cluster.lastSendSize = size }
        if arrival < cluster.firstArrival { cluster.firstArrival = arrival; cluster.firstArrivalSize = size }
        if arrival > cluster.lastArrival { cluster.lastArrival = arrival }
        guard cluster.packets >= Self.minimumPackets else { return nil }
        let receiveSpan = cluster.lastArrival - cluster.firstArrival
        guard receiveSpan >= Self.minimumSpan else { return nil }  // all at once so far: nothing measured yet
        cluster.done = true
        let sendSpan = cluster.lastSend - cluster.firstSend
        let receiveRate = Double(cluster.bytes - cluster.firstArrivalSize) * 8 / (receiveSpan / 1000)
        let sendRate = sendSpan >= Self.minimumSpan
            ? Double(cluster.bytes - cluster.lastSendSize) * 8 / (sendSpan / 1000) : Double.infinity
        var rate = min(receiveRate, sendRate, Double(cluster.bitrate))
        // Received well under the rate sent: the link's capacity was found; settle a little under it so as not to
        // overuse at once (libwebrtc `kMinRatioForUnsaturatedLink` 0.9, `kTargetUtilizationFraction` 0.95).
        if sendRate.isFinite, receiveRate < Self.unsaturatedRatio * sendRate {
            rate = min(rate, Self.targetUtilization * receiveRate)
        }
        return rate.isFinite && rate > 0 ? Int(rate) : nil
    }
}
