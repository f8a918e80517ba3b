/// Groups packets sent within 5 ms of each other and yields the send-time and arrival-time deltas between
/// consecutive groups (draft-ietf-rmcat-gcc-02 section 5.2; libwebrtc `InterArrivalDelta`). Bursts that arrive
/// together after a delay (e.g. released from a Wi-Fi aggregation) are merged into one group. Times in ms.
struct InterArrivalGrouper: Sendable {
    /// Packets sent within this time of a group's first packet belong to it (libwebrtc `kSendTimeGroupLength`).
    static let groupLength = 5.0
    /// Packets arriving within this time of the previous one with negative propagation delta are one burst
    /// (libwebrtc `kBurstDeltaThreshold`).
    static let burstDeltaThreshold = 5.0
    /// The longest burst (libwebrtc `kMaxBurstDuration`).
    static let maxBurstDuration = 100.0
    /// An arrival delta this much larger than the local time delta means the receiver's clock jumped
    /// (libwebrtc `kArrivalTimeOffsetThreshold`).
    static let arrivalTimeOffsetThreshold = 3000.0
    /// Consecutive reordered groups that reset the grouper (libwebrtc `kReorderedResetThreshold`).
    static let reorderedResetThreshold = 3

    struct Group: Sendable {
        var firstSendTime = 0.0
        var sendTime = 0.0
        var firstArrival = 0.0
        var completeTime = 0.0
        var lastSystemTime = 0.0
        var size = 0
        var isEmpty = true
    }

    /// What two consecutive groups differ by.
    struct Deltas: Sendable {
        var sendDelta: Double
        var arrivalDelta: Double
        var sizeDelta: Int
    }

    private var current = Group()
    private var previous = Group()
    private var reorderedGroups = 0

    mutating func reset() { self = InterArrivalGrouper() }

    private func belongsToBurst(arrival: Double, send: Double) -> Bool {
        let arrivalDelta = arrival - current.completeTime
        let sendDelta = send - current.sendTime
        if sendDelta == 0 { return true }
        let propagationDelta = arrivalDelta - sendDelta
        return propagationDelta < 0 && arrivalDelta <= Self.burstDeltaThreshold
            && arrival - current.firstArrival < Self.maxBurstDuration
    }

    private func startsNewGroup(arrival: Double, send: Double) -> Bool {
        if current.isEmpty || belongsToBurst(arrival: arrival, send: send) { return false }
        return send - current.firstSendTime > Self.groupLength
    }

    /// Adds one acknowledged packet.
    /// - Parameters:
    ///   - send: its send time (ms, sender clock).
    ///   - arrival: its arrival time (ms, receiver clock).
    ///   - systemTime: when the feedback was processed (ms, sender clock).
    ///   - size: bytes.
    /// - Returns: the deltas between the last two complete groups when this packet completes one.
    mutating func add(send: Double, arrival: Double, systemTime: Double, size: Int) -> Deltas? {
        var deltas: Deltas?
        if current.isEmpty {
            current.firstSendTime = send
            current.sendTime = send
            current.firstArrival = arrival
            current.isEmpty = false
        } else if current.firstSendTime > send {
            return nil  // reordered packet
        } else if startsNewGroup(arrival: arrival, send: send) {
            if !previous.isEmpty {
                let sendDelta = current.sendTime - previous.sendTime
                let arrivalDelta = current.completeTime - previous.completeTime
                let systemDelta = current.lastSystemTime - previous.lastSystemTime
                if arrivalDelta - systemDelta >= Self.arrivalTimeOffsetThreshold {
                    reset()
                    return nil
                }
                if arrivalDelta < 0 {
                    reorderedGroups += 1
                    if reorderedGroups >= Self.reorderedResetThreshold { reset() }
                    return nil
                }
                reorderedGroups = 0
                deltas = Deltas(sendDelta: sendDelta, arrivalDelta: arrivalDelta, sizeDelta: current.size - previous.size)
            }
            previous = current
            current = Group(firstSendTime: send, sendTime: send, firstArrival: arrival, isEmpty: false)
        } else {
            current.sendTime = max(current.sendTime, send)
        }
        current.size += size
        current.completeTime = arrival
        current.lastSystemTime = systemTime
        return deltas
    }
}
