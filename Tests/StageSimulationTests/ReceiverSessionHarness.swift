import H264
import MediaTime
import RTP
@testable import Receiver

/// One real `ReceiverSession` driven by hand on a virtual clock, the way `ReceiverSessionDriver` drives it over a
/// socket: after every input every output is taken, and what it sends is kept with the time it left. The decoder is
/// a model of one reference frame: a picture is shown when its access unit arrived and it is an IDR or the previous
/// picture was shown (what the network benchmark calls "decoded bit-exact"). The session simulation runs one between
/// its paths; the tests of single properties drive one alone, scheduling datagrams with `deliver(_:at:)`.
final class ReceiverSessionHarness {
    let session: ReceiverSession
    /// The RTCP compounds sent, in order, with the time each left.
    private(set) var transmitted: [(at: MonotonicTime, compound: [RTCPPacket])] = []
    /// When each picture was shown.
    private(set) var shownAt: [MonotonicTime] = []
    /// The latest time an input came in.
    private(set) var now: MonotonicTime
    private let frameRate: Double
    private let pictureSize: (width: Int, height: Int)
    private var lastShownIndex: Int?
    /// Datagrams on their way (`deliver(_:at:)`), by arrival time, in order of delivery for equal times.
    private var arrivals: [(at: MonotonicTime, datagram: [UInt8])] = []

    /// A harness over `scenario`'s receiver, started at `start`.
    init(_ scenario: SessionSimulation.Scenario, start: MonotonicTime = SessionSimulation.start) throws {
        session = try scenario.makeReceiver(start: start)
        frameRate = scenario.frameRate
        pictureSize = (scenario.width, scenario.height)
        now = start
    }

    // MARK: Inputs (each takes every output)

    /// A datagram arriving at `now`: RTCP (RFC 5761 multiplexing) or RTP.
    func receive(_ datagram: [UInt8], now: MonotonicTime) throws {
        self.now = now
        if RTCPPacket.isMultiplexedRTCP(datagram[...]) {
            session.handle(rtcp: try RTCPPacket.parseCompound(datagram), now: now)
        } else {
            datagram.withUnsafeBytes { session.handle(rtp: $0, now: now) }
        }
        drain()
    }

    /// The session's timeout, at `now` (whether due or not).
    func handleTimeout(now: MonotonicTime) {
        self.now = now
        session.handleTimeout(now: now)
        drain()
    }

    /// Puts a datagram on its way, to arrive at `time` (handled by `advance(to:)`).
    func deliver(_ datagram: [UInt8], at time: MonotonicTime) {
        let index = arrivals.firstIndex { $0.at > time } ?? arrivals.endIndex
        arrivals.insert((time, datagram), at: index)
    }

    /// Runs the clock to `time`: arrivals and deadlines on the way, each at its time (arrivals first).
    func advance(to time: MonotonicTime) throws {
        var steps = 0
        while steps < 1_000_000 {
            steps += 1
            let arrival = arrivals.first.map(\.at)
            let deadline = session.pollTimeout()
            if let arrival, arrival <= time, deadline.map({ arrival <= $0 }) ?? true {
                let datagram = arrivals.removeFirst().datagram
                try receive(datagram, now: max(arrival, now))
            } else if let deadline, deadline <= time {
                handleTimeout(now: max(deadline, now))
            } else {
                break
            }
        }
        now = max(now, time)
    }

    // MARK: What came out

    /// The NACKs sent, each once (the session sends `nackCopies` copies of each), with the time they left.
    var nacksSent: [(at: MonotonicTime, lost: [SequenceNumber])] {
        var nacks: [(at: MonotonicTime, lost: [SequenceNumber])] = []
        var previous: (at: MonotonicTime, compound: [RTCPPacket])?
        for (at, compound) in transmitted {
            defer { previous = (at, compound) }
            guard previous.map({ $0.at != at || $0.compound != compound }) ?? true else { continue }  // a copy
            for case .nack(let nack) in compound { nacks.append((at, nack.lostSequenceNumbers)) }
        }
        return nacks
    }

    /// The session's statistics now.
    var statistics: ReceiverStats { session.snapshot(now: now) }

    /// Takes every output, as the driver does after each input: access units to the decoder model, then RTCP.
    private func drain() {
        while let event = session.pollEvent() {
            switch event {
            case .decode(let received):
                let index = Int((Int64(received.rtpTimestamp.rawValue) * Int64(frameRate) + 45_000) / 90_000)
                if received.frame.isKeyframe || lastShownIndex.map({ $0 + 1 == index }) == true {
                    if received.frame.isKeyframe { session.handle(keyframeDecoded: now) }
                    lastShownIndex = index
                    shownAt.append(now)
                    session.handle(pictureShown: pictureSize, now: now)
                } else {
                    session.handle(decodeFailed: now)
                }
            }
        }
        while let compound = session.pollTransmit() { transmitted.append((now, compound)) }
    }
}
