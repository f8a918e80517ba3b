/// UDP generic segmentation offload (Linux `UDP_SEGMENT`, "GSO") for the send path: consecutive packets of one
/// flush that are all as long as the first (the last may be shorter) leave as one write that the kernel cuts into
/// datagrams, so that the IP stack (routing, netfilter, the device queue) runs once per run of packets instead of once
/// per packet. The datagrams on the wire are the same. An FU-A frame's fragments differ by at most one byte
/// (`H264Payloader` splits near-equally, the longer ones first), so a frame's packets make one or two runs.
///
/// Each path is proven before it is trusted: a write of a segment size longer than any that has gone through carries
/// a promise (a few allocations while a stream starts, none after), and a failure (a segment over the path's MTU:
/// `EMSGSIZE`; a route through IPsec: `EIO`) turns the offload off for the transport, counted in
/// `TransportCounters.segmentationOffloadFailures`; packets then leave one by one as before.
struct SegmentationOffload {
    /// The most packets in one write (the kernel's `UDP_MAX_SEGMENTS` is 64 or more).
    static let maximumSegments = 64
    /// The longest segment sent this way: one that fits a 1,500-byte link under IPv6 and UDP headers (1500 - 40 - 8).
    /// Longer packets (a configured MTU above Ethernet's) leave one by one, so the kernel may still fragment them.
    static let maximumSegmentSize = 1452
    /// The most bytes in one write (under IPv4's 65,507-byte UDP payload limit).
    static let maximumWriteSize = 60_000

    /// Whether runs leave as one write.
    private(set) var isEnabled: Bool
    /// The longest segment size a write has gone through with on the current path (0: none yet).
    private(set) var provenSegmentSize = 0

    /// - Parameter enabled: whether to use the offload (the platform supports it and the configuration allows it).
    init(enabled: Bool) {
        isEnabled = enabled
    }

    /// Whether a write of runs of `segmentSize` must carry a promise: nothing of that size has gone through yet.
    func needsProof(segmentSize: Int) -> Bool {
        segmentSize > provenSegmentSize
    }

    /// A write with `segmentSize` went through.
    mutating func succeeded(segmentSize: Int) {
        provenSegmentSize = max(provenSegmentSize, segmentSize)
    }

    /// A write failed: no more offload on this transport.
    mutating func failed() {
        isEnabled = false
    }

    /// The path changed (ICE picked another pair, a relay): sizes are proven again.
    mutating func pathChanged() {
        provenSegmentSize = 0
    }
}

/// A run of consecutive packets in a flush's wire buffer that can leave as one segmented write: each `segment` bytes
/// long but the last, which may be shorter (then nothing more joins).
struct SegmentRun {
    /// Where the run starts and ends in the wire buffer.
    private(set) var start: Int
    private(set) var end: Int
    /// The length of each packet but the last.
    private(set) var segment: Int
    /// The packets in it.
    private(set) var count: Int
    private var closed = false

    /// Cuts the packets of a flush, given where each ends in the wire buffer (the first starts at 0), into runs, in
    /// order: with `offload` each run as long as `append` lets it grow, without it one packet each.
    /// - Parameters:
    ///   - ends: each packet's end offset, ascending; not empty.
    ///   - offload: whether packets may join a run.
    ///   - body: called with each run.
    static func split(ends: [Int], offload: Bool, _ body: (SegmentRun) -> Void) {
        guard let first = ends.first else { return }
        var run = SegmentRun(start: 0, end: first)
        for end in ends.dropFirst() where !run.append(end: end, offload: offload) {
            body(run)
            run = SegmentRun(start: run.end, end: end)
        }
        body(run)
    }

    /// A run of one packet.
    init(start: Int, end: Int) {
        self.start = start
        self.end = end
        self.segment = end - start
        self.count = 1
    }

    /// Adds the next packet (ending at `end`) when it can join: offload on, no longer than the segment, the segment
    /// and the run within the limits, the run not already ended by a shorter packet.
    /// - Returns: whether it joined.
    mutating func append(end newEnd: Int, offload: Bool) -> Bool {
        let length = newEnd - end
        guard offload, !closed, length > 0, length <= segment, count < SegmentationOffload.maximumSegments,
            segment <= SegmentationOffload.maximumSegmentSize, newEnd - start <= SegmentationOffload.maximumWriteSize
        else { return false }
        if length < segment { closed = true }
        end = newEnd
        count += 1
        return true
    }
}
