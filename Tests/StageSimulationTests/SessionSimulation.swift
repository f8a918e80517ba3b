import Codec
import H264
import MediaTime
import RTP
import SRTP
import TestSupport
@testable import Receiver
@testable import Sender

/// The real `SenderSession` against the real `ReceiverSession` over two `SimulatedPath`s, on a virtual clock: the
/// congestion control, retransmissions, pacing, probing and reports the network benchmark measures over sockets,
/// deterministic for a seed and run in seconds. Each session runs in its harness (`SenderSessionHarness`,
/// `ReceiverSessionHarness`: after every input every output is taken, as the drivers do); the encoder is an
/// `EncoderModel` and the decoder a model of one reference frame (a picture is shown when its access unit arrived and
/// it is an IDR or the previous picture was shown): what the benchmark calls "decoded bit-exact".
///
/// The loop is event-driven: the clock jumps to the earliest of the next frame, either session's deadline and the
/// next datagram arrival.
struct SessionSimulation {
    /// What to run.
    struct Scenario {
        var seconds = 60
        var forward = SimulatedPath.Impairment()
        var backward = SimulatedPath.Impairment()
        var width = 1280
        var height = 720
        var frameRate = 30.0
        var bitrate = 1_500_000
        var nack = true
        var rtx = true
        var transportCC = true
        /// FlexFEC on the sender (`SenderConfiguration.fec`) and the receiver (`fecPayloadType`).
        var fec = false
        /// The receiver's playout delay for repairs (`ReceiverConfiguration.repairDelay`).
        var repairDelay = true
        /// The receiver ignores the transport-wide sequence number (sends no feedback), as ffmpeg does.
        var receiverWithoutTransportFeedback = false
        /// The sender's pacer (`SenderConfiguration.pacingFactor`, its default factor), or every packet at once.
        var pacing = true
        var congestionControl = true
        /// Where the congestion estimate starts (`SenderConfiguration.startBitrate`): the operator's bitrate here, so
        /// that the focused session tests see no start-up probing; the network cases (`SessionSimulationTests`) start
        /// at the library's default, 300 kbit/s.
        var startBitrate: Int?
        var senderReportInterval = Duration.seconds(1)
        var receiverReportInterval = Duration.seconds(1)
        var seed: UInt64 = 1
        /// The abs-capture-time extension's ID, or none.
        var absoluteCaptureTimeID: UInt8?
        /// The playout delay sent and its extension's ID, or none.
        var playoutDelay: (delay: PlayoutDelay, id: UInt8)?
        /// Take a `Sample` this often (none by default): a timeline finer than the sender's reports.
        var sampleInterval: Duration?
    }

    /// The sender's statistics, the forward path's counters and the pictures shown so far, at one time.
    struct Sample {
        var at: Duration
        var sender: SenderStats
        var forward: SimulatedPath.Counters
        var shown: Int
    }

    /// What came out.
    struct Outcome {
        /// Access units the encoder produced.
        var framesEncoded = 0
        /// Pictures shown (decodable: arrived, and an IDR or the previous picture shown).
        var framesShown = 0
        /// When each picture was shown, since the start.
        var shownAt: [Duration] = []
        /// The sender's statistics once a report interval, and at the end.
        var senderReports: [SenderStats] = []
        var sender = SenderStats()
        var receiver = ReceiverStats()
        var forward = SimulatedPath.Counters()
        var backward = SimulatedPath.Counters()
        /// Deadlines that did not move the clock (each one costs the loop a step; a busy loop would show here).
        var stalledSteps = 0
        /// One per `Scenario.sampleInterval`, when set.
        var samples: [Sample] = []

        var shownShare: Double { Double(framesShown) / Double(max(framesEncoded, 1)) }

        /// Gaps between consecutive shown pictures longer than `threshold`, from the first picture to the end of
        /// the encoded stream.
        func freezes(longerThan threshold: Duration, end: Duration) -> [Duration] {
            var gaps: [Duration] = []
            for (a, b) in zip(shownAt, shownAt.dropFirst()) where b - a > threshold { gaps.append(b - a) }
            if let last = shownAt.last, end - last > threshold { gaps.append(end - last) }
            return gaps
        }

        /// The sender's target at each report, with its time since the start.
        var targets: [(at: Duration, bitrate: Int)] {
            senderReports.map { (Duration.seconds($0.timestamp), $0.targetBitrate) }
        }

        /// The share of the media bytes sent again.
        var retransmissionShare: Double {
            Double(sender.retransmittedBytesSent) / Double(max(sender.bytesSent + sender.headerBytesSent, 1))
        }
    }

    static let mediaSSRC = SSRC(0x1111_1111)
    static let rtxSSRC = SSRC(0x2222_2222)
    static let receiverSSRC = SSRC(0x3333_3333)
    static let transportCCID: UInt8 = 3
    static let firstSequenceNumber = SequenceNumber(1000)
    static let rtxFirstSequenceNumber = SequenceNumber(5000)
    /// The virtual clock's start, and the sender's wall clock then.
    static let start = MonotonicTime(nanoseconds: 1_000_000_000)
    static let wallClockAtStart = NTPTimestamp(seconds: 3_900_000_000, fraction: 0)
    /// The RTP payload type of the RTX stream, when there is one.
    static let rtxPayloadType = PayloadType(97)
    /// The FlexFEC stream's SSRC, payload type and first sequence number, when there is one.
    static let fecSSRC = SSRC(0x4444_4444)
    static let fecPayloadType = PayloadType(49)
    static let fecFirstSequenceNumber = SequenceNumber(9000)

    let scenario: Scenario

    init(_ scenario: Scenario) { self.scenario = scenario }

    func run() throws -> Outcome {
        var random = SplitMix64(seed: scenario.seed)
        let start = Self.start
        var now = start
        let sender = try SenderSessionHarness(scenario, start: start)
        let receiver = try ReceiverSessionHarness(scenario, start: start)
        // The paths count the SRTP tag the sessions leave room for (the simulation itself sends plain RTP).
        let srtpTrailer = SRTPSuite.default.rtpTrailerLength
        let srtcpTrailer = SRTPSuite.default.rtcpTrailerLength
        var forward = SimulatedPath(scenario.forward, start: start)
        var backward = SimulatedPath(scenario.backward, start: start)
        var outcome = Outcome()
        let frameInterval = Duration.nanoseconds(Int64(1e9 / scenario.frameRate))
        let encodeEnd = start + .seconds(scenario.seconds)
        // After the last frame the paths and sessions run on, so that the tail can be repaired.
        let end = encodeEnd + .seconds(2)
        var frameIndex = 0
        var nextFrame = start
        var sentForward = 0
        var sentBackward = 0
        var nextSample = scenario.sampleInterval.map { start + $0 }

        /// What the sender sent since the last call, onto the forward path.
        func transmitForward() throws {
            for sent in sender.transmitted[sentForward...] {
                switch sent.packet {
                case .rtp(let packet): forward.send(packet, trailer: srtpTrailer, now: now, random: &random)
                case .rtcp(let compound):
                    forward.send(try RTCPPacket.serialized(compound), trailer: srtcpTrailer, now: now, random: &random)
                }
            }
            sentForward = sender.transmitted.count
        }

        /// What the receiver sent since the last call, onto the backward path.
        func transmitBackward() throws {
            for (_, compound) in receiver.transmitted[sentBackward...] {
                backward.send(try RTCPPacket.serialized(compound), trailer: srtcpTrailer, now: now, random: &random)
            }
            sentBackward = receiver.transmitted.count
        }

        while now < end {
            if let due = nextSample, due <= now, let interval = scenario.sampleInterval {
                outcome.samples.append(Sample(
                    at: now - start, sender: sender.session.snapshot(now: now), forward: forward.counters,
                    shown: receiver.shownAt.count))
                nextSample = due + interval
            }
            while let datagram = forward.receive(now: now) {
                try receiver.receive(datagram, now: now)
                try transmitBackward()
            }
            while let datagram = backward.receive(now: now) {
                sender.receive(try RTCPPacket.parseCompound(datagram), now: now)
                try transmitForward()
            }
            if let due = sender.session.pollTimeout(), due <= now {
                sender.handleTimeout(now: now)
                try transmitForward()
            }
            if let due = receiver.session.pollTimeout(), due <= now {
                receiver.handleTimeout(now: now)
                try transmitBackward()
            }
            if nextFrame <= now, nextFrame < encodeEnd {
                sender.encode(captureTime: nextFrame, now: now, random: &random)
                outcome.framesEncoded += 1
                try transmitForward()
                frameIndex += 1
                nextFrame = start + frameInterval * frameIndex
            }
            var next = end
            for candidate in [
                nextFrame < encodeEnd ? nextFrame : nil, sender.session.pollTimeout(), receiver.session.pollTimeout(),
                forward.nextArrival, backward.nextArrival, nextSample,
            ] {
                if let candidate, candidate < next { next = candidate }
            }
            if next <= now {
                outcome.stalledSteps += 1
                next = now + .microseconds(100)
            }
            now = next
        }
        sender.finish(now: now)
        try transmitForward()
        outcome.framesShown = receiver.shownAt.count
        outcome.shownAt = receiver.shownAt.map { $0 - start }
        outcome.senderReports = sender.reports
        outcome.sender = sender.session.snapshot(now: now)
        outcome.receiver = receiver.session.snapshot(now: now)
        outcome.forward = forward.counters
        outcome.backward = backward.counters
        return outcome
    }
}

extension SessionSimulation.Scenario {
    /// The sender's configuration for this scenario: the encoder's size, rate and Constrained Baseline profile, NACK,
    /// RTX, transport-wide feedback, pacing, congestion control and report interval as set, and SRTP keys, so that
    /// the packets leave room for the SRTP tag and the estimator counts it as over a socket (the simulation itself
    /// sends plain RTP).
    func senderConfiguration() -> SenderConfiguration {
        var encoder = EncoderConfiguration(width: width, height: height, frameRate: frameRate, targetBitrate: bitrate)
        encoder.profile = .constrainedBaseline
        var configuration = SenderConfiguration(peerHost: "127.0.0.1", peerPort: 5004, encoder: encoder)
        configuration.nack = nack
        configuration.rtx = rtx
            ? SenderConfiguration.RTX(payloadType: SessionSimulation.rtxPayloadType, ssrc: SessionSimulation.rtxSSRC) : nil
        configuration.transportWideCCExtensionID = transportCC ? SessionSimulation.transportCCID : nil
        configuration.fec = fec
            ? SenderConfiguration.FEC(payloadType: SessionSimulation.fecPayloadType, ssrc: SessionSimulation.fecSSRC) : nil
        configuration.pacingFactor = pacing ? Pacer.defaultPacingFactor : nil
        configuration.congestionControl = congestionControl
        configuration.startBitrate = startBitrate
        configuration.reportInterval = senderReportInterval
        configuration.absoluteCaptureTimeExtensionID = absoluteCaptureTimeID
        configuration.playoutDelay = playoutDelay?.delay
        configuration.playoutDelayExtensionID = playoutDelay?.id
        var keys = SplitMix64(seed: seed ^ 0x5EC)
        configuration.security = SenderConfiguration.Security(key: SRTPMasterKey.random(for: .default, using: &keys))
        return configuration
    }

    /// The sender's session, started at `start`: SSRCs and first sequence numbers are `SessionSimulation`'s, the RTP
    /// timestamps start at 0.
    func makeSender(start: MonotonicTime = SessionSimulation.start) throws -> SenderSession {
        let configuration = senderConfiguration()
        let identity = StreamIdentity(
            ssrc: SessionSimulation.mediaSSRC, rtxSSRC: rtx ? SessionSimulation.rtxSSRC : nil,
            firstSequenceNumber: SessionSimulation.firstSequenceNumber, timestampOffset: 0,
            rtxFirstSequenceNumber: SessionSimulation.rtxFirstSequenceNumber, fecSSRC: fec ? SessionSimulation.fecSSRC : nil,
            fecFirstSequenceNumber: SessionSimulation.fecFirstSequenceNumber)
        return try SenderSession(
            configuration: configuration, identity: identity, payloadLimit: configuration.payloadLimit, now: start,
            wallClock: SessionSimulation.wallClockAtStart)
    }

    /// The receiver's configuration for this scenario (NACK, RTX, transport-wide feedback, report interval).
    func receiverConfiguration() -> ReceiverConfiguration {
        var configuration = ReceiverConfiguration(listenHost: "127.0.0.1", listenPort: 5004)
        configuration.nack = nack
        configuration.rtxPayloadType = rtx ? SessionSimulation.rtxPayloadType.rawValue : nil
        configuration.fecPayloadType = fec ? SessionSimulation.fecPayloadType.rawValue : nil
        configuration.repairDelay = repairDelay
        configuration.transportWideCCExtensionID =
            transportCC && !receiverWithoutTransportFeedback ? SessionSimulation.transportCCID : nil
        configuration.absoluteCaptureTimeExtensionID = absoluteCaptureTimeID
        configuration.playoutDelayExtensionID = playoutDelay?.id
        configuration.reportInterval = receiverReportInterval
        return configuration
    }

    /// The receiver's session, started at `start`.
    func makeReceiver(start: MonotonicTime = SessionSimulation.start) throws -> ReceiverSession {
        try ReceiverSession(configuration: receiverConfiguration(), ssrc: SessionSimulation.receiverSSRC, now: start)
    }
}
