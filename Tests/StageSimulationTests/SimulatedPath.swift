import MediaTime
import RTP
import TestSupport

/// One direction of a simulated network path, on a virtual clock: random and bursty loss, a fixed delay plus
/// jitter (packets stay in order, as on one route), a bottleneck of a given capacity with a drop-tail queue, a policer
/// (a token bucket that drops what exceeds it and queues nothing), and blackouts. Deterministic for a given random
/// source. The bottleneck and the policer count each datagram's bytes, as the impairment relay counts UDP payload.
struct SimulatedPath {
    /// How the path treats datagrams.
    struct Impairment {
        /// The fixed one-way delay.
        var delay: Duration = .milliseconds(25)
        /// Up to this much extra delay, uniform, per datagram (order is kept).
        var jitter: Duration = .zero
        /// The chance that a datagram is lost, independently.
        var loss: Double = 0
        /// Bursty loss (Gilbert-Elliott): the chance of entering the bad state per datagram and of staying in it;
        /// every datagram in the bad state is lost.
        var burst: (enter: Double, stay: Double)?
        /// The bottleneck's capacity in bit/s at a time since the start; nil for none.
        var capacity: ((Duration) -> Int)?
        /// The bottleneck's queue, in datagrams (drop-tail).
        var queueLimit = 30
        /// Times since the start when nothing gets through.
        var blackouts: [Range<Duration>] = []
        /// A policer: a token bucket of `bucketBytes` refilled at `bitsPerSecond` (full at the start); a datagram
        /// whose bytes exceed the tokens left is dropped, never delayed. As iptables `hashlimit --hashlimit-above
        /// 50kb/s` polices the mixed-audience benchmark's viewer B (it passes about 400 kbit/s with a bucket of
        /// about 45 KB, measured), and as ISPs and cellular networks police a subscriber.
        var policer: (bitsPerSecond: Int, bucketBytes: Int)?
    }

    /// What happened on the path.
    struct Counters {
        var sent = 0
        var lost = 0
        var droppedByQueue = 0
        var droppedByPolicer = 0
        var delivered = 0
    }

    let impairment: Impairment
    let start: MonotonicTime
    private(set) var counters = Counters()
    private var inFlight: [(at: MonotonicTime, bytes: [UInt8])] = []
    private var inFlightHead = 0
    private var linkFree: MonotonicTime
    private var queueDepartures: [MonotonicTime] = []
    private var lastArrival: MonotonicTime
    private var inBurst = false
    private var policerTokens: Double
    private var policerRefilled: MonotonicTime

    init(_ impairment: Impairment, start: MonotonicTime) {
        self.impairment = impairment
        self.start = start
        linkFree = start
        lastArrival = start
        policerTokens = Double(impairment.policer?.bucketBytes ?? 0)
        policerRefilled = start
    }

    /// Puts a datagram on the path at `now`.
    /// - Parameters:
    ///   - bytes: the datagram.
    ///   - trailer: bytes the real datagram carries beyond these (the SRTP tag the simulation does not compute),
    ///     counted by the bottleneck.
    ///   - now: now.
    ///   - random: the simulation's random source.
    mutating func send(_ bytes: [UInt8], trailer: Int = 0, now: MonotonicTime, random: inout SplitMix64) {
        counters.sent += 1
        let elapsed = now - start
        if impairment.blackouts.contains(where: { $0.contains(elapsed) }) {
            counters.lost += 1
            return
        }
        if let burst = impairment.burst {
            inBurst = Double.random(in: 0..<1, using: &random) < (inBurst ? burst.stay : burst.enter)
            if inBurst {
                counters.lost += 1
                return
            }
        }
        if impairment.loss > 0, Double.random(in: 0..<1, using: &random) < impairment.loss {
            counters.lost += 1
            return
        }
        if let policer = impairment.policer {
            let refill = Double((now - policerRefilled).saturatingNanoseconds) * Double(policer.bitsPerSecond) / 8e9
            policerTokens = min(Double(policer.bucketBytes), policerTokens + refill)
            policerRefilled = now
            let cost = Double(bytes.count + trailer)
            guard cost <= policerTokens else {
                counters.droppedByPolicer += 1
                return
            }
            policerTokens -= cost
        }
        var departure = now
        if let capacity = impairment.capacity {
            queueDepartures.removeAll { $0 <= now }
            guard queueDepartures.count < impairment.queueLimit else {
                counters.droppedByQueue += 1
                return
            }
            let bitsPerSecond = max(1, capacity(elapsed))
            let serialization = Duration.nanoseconds(Int64((bytes.count + trailer) * 8) * 1_000_000_000 / Int64(bitsPerSecond))
            departure = max(now, linkFree) + serialization
            linkFree = departure
            queueDepartures.append(departure)
        }
        var arrival = departure + impairment.delay
        if impairment.jitter > .zero {
            let extra = Int64.random(in: 0...impairment.jitter.saturatingNanoseconds, using: &random)
            arrival = arrival + .nanoseconds(extra)
        }
        arrival = max(arrival, lastArrival)
        lastArrival = arrival
        inFlight.append((arrival, bytes))
    }

    /// When the next datagram arrives, if any is on the way.
    var nextArrival: MonotonicTime? { inFlightHead < inFlight.count ? inFlight[inFlightHead].at : nil }

    /// The next datagram that has arrived by `now`.
    mutating func receive(now: MonotonicTime) -> [UInt8]? {
        guard inFlightHead < inFlight.count, inFlight[inFlightHead].at <= now else { return nil }
        let bytes = inFlight[inFlightHead].bytes
        inFlightHead += 1
        if inFlightHead > 4096 {
            inFlight.removeFirst(inFlightHead)
            inFlightHead = 0
        }
        counters.delivered += 1
        return bytes
    }
}
