import Codec
import MediaTime
import RTP

/// A leaky-bucket pacer (libwebrtc `PacingController`): packets leave at `pacingFactor` x the target rate, so a
/// keyframe's burst of packets does not overflow a shallow bottleneck queue, with bounded bursts, retransmissions
/// ahead of new media, and bounded queues.
///
/// Pure: the caller enqueues packets as they are produced, asks `nextSendTime(now:)` when to wake up, and calls
/// `dequeue(now:)` then; the pacer reads no clock and sends nothing. Sending a packet adds its size to a debt that
/// drains at the pacing rate; a packet may leave while the debt is at most `burstInterval` worth of the rate (and at
/// most `maximumBurstSize`).
///
/// If the oldest media packet has waited so long that the queue cannot drain within `queueTimeLimit` at the
/// pacing rate, the rate is raised just enough to drain it in time (libwebrtc `kMaxExpectedQueueLength`, 2 s),
/// rather than letting latency grow without bound.
public struct Pacer: Sendable {
    /// The default factor over the target rate (libwebrtc `PacingController::kDefaultPaceMultiplier`, 2.5).
    public static let defaultPacingFactor = 2.5
    /// The default burst allowance: 40 ms at the pacing rate (libwebrtc `PacingController::kDefaultBurstInterval`),
    /// so that a P frame leaves at once when the link has room (at 720p and 1.5 Mbit/s its packets well under a
    /// millisecond apart instead of 6.8 ms with 5 ms, Docs/Benchmarks.md `run-latency.sh`); a keyframe beyond it is
    /// paced.
    public static let defaultBurstInterval: Duration = .milliseconds(40)
    /// The burst allowance while the path has not shown room above the target
    /// (`SendSideBandwidthEstimator.hasRoom`): 5 ms (about two 1,200-byte packets at 3.75 Mbit/s). A frame sent at
    /// once is one packet group for the delay-based detector, whose trendline then spans 20 frames (0.67 s): entering
    /// a 500 kbit/s bottleneck at 1.2 Mbit/s, the 30-packet queue filled before it saw the queue build
    /// (`LossyPathCommandLineTests` under load), and at a 1 Mbit/s bottleneck the additive increase overshot to
    /// 1.06 Mbit/s before turning back (`SessionSimulationTests`). libwebrtc avoids the first by entering every path at
    /// 300 kbit/s and probing up.
    public static let congestedBurstInterval: Duration = .milliseconds(5)
    /// The most bytes one burst may carry, whatever the rate (libwebrtc `kMaxBurstSize`: 63 KB, so that a burst does
    /// not overflow a send socket buffer).
    public static let maximumBurstSize = 63_000.0
    /// The default media queue capacity in packets (about 1.4 s at 10 Mbit/s of 1,200-byte packets).
    public static let defaultMediaQueueCapacity = 1024
    /// The default retransmission queue capacity in packets.
    public static let defaultRetransmissionQueueCapacity = 256
    /// The default longest expected queue time (libwebrtc `kMaxExpectedQueueLength`).
    public static let defaultQueueTimeLimit: Duration = .seconds(2)
    /// Target rates are clamped to this range, in bits per second.
    public static let targetBitrateRange = 10_000...1_000_000_000
    /// Tolerance when comparing the debt with the allowance, in bytes (absorbs nanosecond rounding).
    static let debtTolerance = 0.01

    /// The factor over the target rate.
    public let pacingFactor: Double
    /// How much may leave back to back, as a duration at the pacing rate (`setBurstInterval(_:)`).
    public private(set) var burstInterval: Duration
    /// How long the media queue may take to drain at most before the rate is raised.
    public let queueTimeLimit: Duration
    /// What to do when a queue is full.
    public let dropPolicy: PacerDropPolicy
    /// The media target rate in bits per second.
    public private(set) var targetBitrate: Int
    /// What happened so far.
    public private(set) var statistics = PacerStatistics()

    /// The rate probe packets leave at while one is at the head of the queue (`setProbeBitrate(_:)`), bit/s.
    public private(set) var probeBitrate: Int?

    private var media: PacketRing
    private var retransmissions: PacketRing
    private var debt: Double = 0
    private var lastDrain: MonotonicTime?

    /// Creates an empty pacer; all queue memory is allocated here.
    /// - Parameters:
    ///   - targetBitrate: the media target in bits per second (clamped to `targetBitrateRange`).
    ///   - pacingFactor: the factor over the target, 1...10.
    ///   - burstInterval: the burst allowance as a duration at the pacing rate, 0...1 s.
    ///   - mediaQueueCapacity: media packets that may wait, 1...65536.
    ///   - retransmissionQueueCapacity: retransmissions that may wait, 1...65536.
    ///   - queueTimeLimit: the longest expected queue time, 10 ms...60 s.
    ///   - dropPolicy: what to do when a queue is full.
    /// - Throws: `PacerError` naming the first parameter out of range.
    public init(
        targetBitrate: Int, pacingFactor: Double = defaultPacingFactor, burstInterval: Duration = defaultBurstInterval,
        mediaQueueCapacity: Int = defaultMediaQueueCapacity,
        retransmissionQueueCapacity: Int = defaultRetransmissionQueueCapacity,
        queueTimeLimit: Duration = defaultQueueTimeLimit, dropPolicy: PacerDropPolicy = .dropOldest
    ) throws(PacerError) {
        guard pacingFactor.isFinite, (1...10).contains(pacingFactor) else { throw .invalidPacingFactor(pacingFactor) }
        guard (1...65536).contains(mediaQueueCapacity) else { throw .invalidQueueCapacity(mediaQueueCapacity) }
        guard (1...65536).contains(retransmissionQueueCapacity) else {
            throw .invalidQueueCapacity(retransmissionQueueCapacity)
        }
        guard burstInterval >= .zero, burstInterval <= .seconds(1) else { throw .invalidDuration(burstInterval) }
        guard queueTimeLimit >= .milliseconds(10), queueTimeLimit <= .seconds(60) else {
            throw .invalidDuration(queueTimeLimit)
        }
        self.pacingFactor = pacingFactor
        self.burstInterval = burstInterval
        self.queueTimeLimit = queueTimeLimit
        self.dropPolicy = dropPolicy
        self.targetBitrate = Self.clamp(targetBitrate)
        self.media = PacketRing(capacity: mediaQueueCapacity)
        self.retransmissions = PacketRing(capacity: retransmissionQueueCapacity)
    }

    private static func clamp(_ bitrate: Int) -> Int {
        min(max(bitrate, targetBitrateRange.lowerBound), targetBitrateRange.upperBound)
    }

    /// Changes the burst allowance.
    /// - Parameter interval: the allowance as a duration at the pacing rate, 0...1 s.
    /// - Throws: `PacerError.invalidDuration` outside that range (the allowance is unchanged).
    public mutating func setBurstInterval(_ interval: Duration) throws(PacerError) {
        guard interval >= .zero, interval <= .seconds(1) else { throw .invalidDuration(interval) }
        burstInterval = interval
    }

    /// Changes the media target (the pacing rate follows).
    /// - Parameter bitsPerSecond: the new target, clamped to `targetBitrateRange`.
    public mutating func setTargetBitrate(_ bitsPerSecond: Int) {
        targetBitrate = Self.clamp(bitsPerSecond)
    }

    /// Sets the rate probe packets leave at (a probe cluster measures the path at its own rate, libwebrtc
    /// `BitrateProber`): while a probe packet is the next to leave, the pacing rate is at least this.
    /// - Parameter bitsPerSecond: the probe's rate, clamped to `targetBitrateRange`; nil for none.
    public mutating func setProbeBitrate(_ bitsPerSecond: Int?) {
        probeBitrate = bitsPerSecond.map(Self.clamp)
    }

    /// The configured pacing rate in bits per second (target x factor).
    public var pacingBitrate: Int { Int(Double(targetBitrate) * pacingFactor) }

    /// Packets waiting.
    public var queuedPackets: Int { media.count + retransmissions.count }
    /// Bytes waiting.
    public var queuedBytes: Int { media.bytes + retransmissions.bytes }

    /// How long the oldest waiting packet has waited.
    /// - Parameter now: the current time.
    public func queueDelay(now: MonotonicTime) -> Duration {
        var oldest: MonotonicTime?
        if let first = media.first?.enqueuedAt { oldest = first }
        if let first = retransmissions.first?.enqueuedAt { oldest = min(oldest ?? first, first) }
        return oldest.map { max(.zero, now - $0) } ?? .zero
    }

    /// The rate in bytes per second at `now`: the pacing rate, raised if the media queue would not drain within
    /// `queueTimeLimit`.
    private func rate(now: MonotonicTime) -> Double {
        var base = Double(targetBitrate) * pacingFactor / 8
        if let probeBitrate, retransmissions.first?.kind == .probe { base = max(base, Double(probeBitrate) / 8) }
        guard let oldest = media.first else { return base }
        let left = max((queueTimeLimit - max(.zero, now - oldest.enqueuedAt)).inSeconds, 0.001)
        return max(base, Double(queuedBytes) / left)
    }

    /// The rate currently in effect, in bits per second (above `pacingBitrate` only while draining a long queue).
    /// - Parameter now: the current time.
    public func effectivePacingBitrate(now: MonotonicTime) -> Int { Int(min(rate(now: now) * 8, 1e15)) }

    private func drainedDebt(now: MonotonicTime, rate: Double) -> Double {
        guard let last = lastDrain else { return debt }
        return max(0, debt - rate * max(.zero, now - last).inSeconds)
    }

    /// Queues a packet behind others of its kind.
    /// - Parameters:
    ///   - packet: the packet (its `enqueuedAt` is set to `now`).
    ///   - now: the current time.
    /// - Returns: the packet dropped to respect the queue limit (the oldest or this one, per `dropPolicy`), if any.
    @discardableResult
    public mutating func enqueue(_ packet: PacedPacket, now: MonotonicTime) -> PacedPacket? {
        var packet = packet
        packet.enqueuedAt = now
        var dropped: PacedPacket?
        switch packet.kind {
        case .media, .forwardErrorCorrection:
            if media.isFull {
                if dropPolicy == .dropNewest {
                    statistics.mediaPacketsDropped += 1
                    return packet
                }
                dropped = media.removeFirst()
                statistics.mediaPacketsDropped += 1
            }
            media.append(packet)
        case .retransmission, .probe:
            if retransmissions.isFull {
                if dropPolicy == .dropNewest {
                    statistics.retransmissionsDropped += 1
                    return packet
                }
                dropped = retransmissions.removeFirst()
                statistics.retransmissionsDropped += 1
            }
            retransmissions.append(packet)
        }
        return dropped
    }

    /// The debt a packet may leave under: `burstInterval` at `rate`, at most `maximumBurstSize`.
    private func allowance(rate: Double) -> Double {
        min(rate * burstInterval.inSeconds, Self.maximumBurstSize)
    }

    /// When the next packet may leave: `now` (or earlier) when one may leave at once, nil when nothing is queued.
    /// - Parameter now: the current time.
    public func nextSendTime(now: MonotonicTime) -> MonotonicTime? {
        guard queuedPackets > 0 else { return nil }
        let rate = rate(now: now)
        let excess = drainedDebt(now: now, rate: rate) - allowance(rate: rate)
        guard excess > Self.debtTolerance else { return now }
        // Round up to the next nanosecond, so that dequeue at that time finds the debt paid.
        return now + .secondsClamped(excess / rate) + .nanoseconds(1)
    }

    /// Takes the next packet if one may leave at `now`: retransmissions first, then media and FEC, each in order.
    /// - Parameter now: the current time.
    /// - Returns: the packet to send now, or nil (nothing queued, or the budget is spent until `nextSendTime`).
    public mutating func dequeue(now: MonotonicTime) -> PacedPacket? {
        let rate = rate(now: now)
        debt = drainedDebt(now: now, rate: rate)
        if let last = lastDrain { lastDrain = max(last, now) } else { lastDrain = now }
        guard queuedPackets > 0, debt <= allowance(rate: rate) + Self.debtTolerance else { return nil }
        guard let packet = retransmissions.removeFirst() ?? media.removeFirst() else { return nil }
        debt += Double(packet.size)
        switch packet.kind {
        case .media: statistics.mediaPacketsSent += 1
        case .forwardErrorCorrection: statistics.fecPacketsSent += 1
        case .retransmission: statistics.retransmissionsSent += 1
        case .probe: statistics.probePacketsSent += 1
        }
        statistics.bytesSent += packet.size
        statistics.longestQueueDelay = max(statistics.longestQueueDelay, now - packet.enqueuedAt)
        return packet
    }

    /// Drops everything queued (e.g. on an SSRC change or shutdown).
    public mutating func removeAll() {
        media.removeAll()
        retransmissions.removeAll()
    }
}
