import Codec
import H264
import MediaTime
import RTP
import TestSupport
@testable import Sender

/// One real `SenderSession` driven by hand on a virtual clock, the way `SenderSessionDriver` drives it over a socket:
/// after every input every output is taken, the encoder's commands go to an `EncoderModel` that applies rates at
/// once, and what goes on the wire is kept with the time it left. The session simulation runs one between its paths;
/// the tests of single properties drive one alone and read what it sent and asked.
final class SenderSessionHarness {
    /// Something the session put on the wire, and when.
    struct Transmitted {
        enum Packet {
            case rtp([UInt8])
            case rtcp([RTCPPacket])
        }

        var at: MonotonicTime
        var packet: Packet

        /// The RTP header, for an RTP packet.
        var rtp: RTPHeader? {
            guard case .rtp(let bytes) = packet else { return nil }
            return try? RTPPacketView(parsing: bytes).header
        }

        /// The compound, for RTCP.
        var rtcp: [RTCPPacket]? {
            guard case .rtcp(let compound) = packet else { return nil }
            return compound
        }
    }

    let session: SenderSession
    /// The encoder the session's commands go to.
    var encoder: EncoderModel
    /// Everything sent, in order.
    private(set) var transmitted: [Transmitted] = []
    /// The rates asked of the encoder, in order, each applied at once.
    private(set) var rateRequests: [(at: MonotonicTime, request: SenderSession.RateRequest)] = []
    /// The statistics of each `.report` event.
    private(set) var reports: [SenderStats] = []
    /// The session's events for the application.
    private(set) var events: [SenderEvent] = []
    /// The latest time an input came in.
    private(set) var now: MonotonicTime
    private var framesSent = 0
    /// The buffer the session writes each RTP packet into (the simulation's wire).
    private var wire = [UInt8](repeating: 0, count: 65_536)

    /// A harness over `scenario`'s sender, started at `start`.
    init(_ scenario: SessionSimulation.Scenario, start: MonotonicTime = SessionSimulation.start) throws {
        session = try scenario.makeSender(start: start)
        encoder = EncoderModel(target: scenario.bitrate, frameRate: scenario.frameRate)
        now = start
        drain()  // as the driver's start(): a low start rate reaches the encoder before its first frame
    }

    // MARK: Inputs (each takes every output)

    /// The model encoder's next frame, captured at `captureTime`, handed over at `now`.
    func encode(captureTime: MonotonicTime, now: MonotonicTime, random: inout SplitMix64) {
        handle(encoder.encode(captureTime: captureTime, random: &random), now: now)
    }

    /// An access unit of `payloadSize` bytes (an IDR with SPS and PPS, or a P slice), captured and handed over at
    /// `now`.
    func send(payloadSize: Int, keyframe: Bool = false, captureTime: MonotonicTime? = nil, now: MonotonicTime) {
        framesSent += 1
        let frame = EncoderModel.accessUnit(payloadSize: payloadSize, isKeyframe: keyframe, index: framesSent)
        let statistics = EncodeStatistics(
            size: frame.bytes.count, averageQP: 30, encodeDuration: .milliseconds(4), keyframeRequested: false)
        handle(.frame(frame, statistics, captureTime: captureTime ?? now, keyframeRequestedAt: nil), now: now)
    }

    /// One output of the encoder, at `now`.
    func handle(_ output: EncoderOutput, now: MonotonicTime) {
        self.now = now
        session.handle(encoded: output, now: now)
        drain()
    }

    /// The peer's RTCP compound, arriving at `now`.
    func receive(_ compound: [RTCPPacket], now: MonotonicTime) {
        self.now = now
        session.handle(rtcp: compound, now: now)
        drain()
    }

    /// The session's timeout, at `now` (whether due or not).
    func handleTimeout(now: MonotonicTime) {
        self.now = now
        session.handleTimeout(now: now)
        drain()
    }

    /// Runs the clock to `time`: every deadline on the way is handled at its time.
    func advance(to time: MonotonicTime) {
        var steps = 0
        while let due = session.pollTimeout(), due <= time, steps < 1_000_000 {
            handleTimeout(now: max(due, now))
            steps += 1
        }
        now = max(now, time)
    }

    /// Ends the stream at `now`.
    func finish(now: MonotonicTime) {
        self.now = now
        session.finish(error: nil, now: now)
        drain()
    }

    // MARK: What came out

    /// The RTP packets sent at or after `time`, in order.
    func rtpSent(from time: MonotonicTime = .zero) -> [(at: MonotonicTime, header: RTPHeader, bytes: [UInt8])] {
        transmitted.compactMap { sent in
            guard sent.at >= time, case .rtp(let bytes) = sent.packet, let header = sent.rtp else { return nil }
            return (sent.at, header, bytes)
        }
    }

    /// The RTCP compounds sent at or after `time`, in order.
    func rtcpSent(from time: MonotonicTime = .zero) -> [(at: MonotonicTime, compound: [RTCPPacket])] {
        transmitted.compactMap { sent in
            guard sent.at >= time, let compound = sent.rtcp else { return nil }
            return (sent.at, compound)
        }
    }

    /// The session's statistics now.
    var statistics: SenderStats { session.snapshot(now: now) }

    /// Takes every output, as the driver does after each input: commands (rates applied at once), transmits, events.
    private func drain() {
        while let command = session.pollEncoderCommand() {
            switch command {
            case .keyframe(let requestedAt, _):
                encoder.requestKeyframe(at: requestedAt)
            case .setRates(let request):
                encoder.target = request.target
                rateRequests.append((now, request))
                session.handle(ratesApplied: request.id, error: nil, now: now)
            }
        }
        // Each RTP packet is written into exactly the room it asked for, as the transport's batch buffer gives it.
        while session.pollTransmit(rtp: { size, write in
            let length = try wire.withUnsafeMutableBytes { try write(UnsafeMutableRawBufferPointer(rebasing: $0[0..<size])) }
            transmitted.append(Transmitted(at: now, packet: .rtp(Array(wire[0..<length]))))
        }, rtcp: { compound in
            transmitted.append(Transmitted(at: now, packet: .rtcp(compound)))
        }) {}
        while let event = session.pollEvent() {
            switch event {
            case .report(let statistics): reports.append(statistics)
            case .sender(let event): events.append(event)
            case .operatorBitrateSettled: break
            }
        }
    }
}
