import Codec
import H264
import MediaTime
import RTP
import SRTP
@testable import Receiver
@testable import Sender

/// The real `SenderSession` against the real `ReceiverSession` over two `SimulatedPath`s, on a virtual clock: the
/// congestion control, retransmissions, pacing, probing and reports the network benchmark measures over sockets,
/// deterministic for a seed and run in seconds. The encoder is an `EncoderModel` and the decoder a model of one
/// reference frame (a picture is shown when its access unit arrived and it is an IDR or the previous picture was
/// shown): what the benchmark calls "decoded bit-exact".
///
/// The loop is event-driven: the clock jumps to the earliest of the next frame, either session's deadline and the
/// next datagram arrival; after every input every output is taken, as the drivers do.
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
        var seed: UInt64 = 1
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

    let scenario: Scenario

    init(_ scenario: Scenario) { self.scenario = scenario }

    func run() throws -> Outcome {
        var random = SplitMix64(seed: scenario.seed)
        let start = MonotonicTime(nanoseconds: 1_000_000_000)
        var now = start

        var encoderConfiguration = EncoderConfiguration(
            width: scenario.width, height: scenario.height, frameRate: scenario.frameRate, targetBitrate: scenario.bitrate)
        encoderConfiguration.profile = .constrainedBaseline
        var senderConfiguration = SenderConfiguration(peerHost: "127.0.0.1", peerPort: 5004, encoder: encoderConfiguration)
        senderConfiguration.nack = scenario.nack
        senderConfiguration.rtx = scenario.rtx ? SenderConfiguration.RTX(payloadType: PayloadType(97), ssrc: Self.rtxSSRC) : nil
        senderConfiguration.transportWideCCExtensionID = scenario.transportCC ? Self.transportCCID : nil
        // As over a socket, the packets leave room for the SRTP tag and the estimator counts it; the paths count it
        // too (the simulation itself sends plain RTP).
        var keys = SplitMix64(seed: scenario.seed ^ 0x5EC)
        senderConfiguration.security = SenderConfiguration.Security(key: SRTPMasterKey.random(for: .default, using: &keys))
        let srtpTrailer = SRTPSuite.default.rtpTrailerLength
        let srtcpTrailer = SRTPSuite.default.rtcpTrailerLength
        let identity = StreamIdentity(
            ssrc: Self.mediaSSRC, rtxSSRC: scenario.rtx ? Self.rtxSSRC : nil, firstSequenceNumber: SequenceNumber(1000),
            timestampOffset: 0, rtxFirstSequenceNumber: SequenceNumber(5000))
        let sender = try SenderSession(
            configuration: senderConfiguration, identity: identity, payloadLimit: senderConfiguration.payloadLimit,
            now: start, wallClock: NTPTimestamp(seconds: 3_900_000_000, fraction: 0))

        var receiverConfiguration = ReceiverConfiguration(listenHost: "127.0.0.1", listenPort: 5004)
        receiverConfiguration.nack = scenario.nack
        receiverConfiguration.rtxPayloadType = scenario.rtx ? 97 : nil
        receiverConfiguration.transportWideCCExtensionID = scenario.transportCC ? Self.transportCCID : nil
        let receiver = try ReceiverSession(configuration: receiverConfiguration, ssrc: Self.receiverSSRC, now: start)

        var forward = SimulatedPath(scenario.forward, start: start)
        var backward = SimulatedPath(scenario.backward, start: start)
        var encoder = EncoderModel(target: scenario.bitrate, frameRate: scenario.frameRate)
        var outcome = Outcome()
        var rateReplies: [Int] = []
        var lastShownIndex: Int?
        let frameInterval = Duration.nanoseconds(Int64(1e9 / scenario.frameRate))
        let encodeEnd = start + .seconds(scenario.seconds)
        // After the last frame the paths and sessions run on, so that the tail can be repaired.
        let end = encodeEnd + .seconds(2)
        var frameIndex = 0
        var nextFrame = start

        func drainSender() throws {
            repeat {
                while let command = sender.pollEncoderCommand() {
                    switch command {
                    case .keyframe(let requestedAt): encoder.requestKeyframe(at: requestedAt)
                    case .setRates(let request):
                        encoder.target = request.target
                        rateReplies.append(request.id)
                    }
                }
                // The encoder applies rates between frames, at once here.
                let replies = rateReplies
                rateReplies.removeAll()
                for id in replies { sender.handle(ratesApplied: id, error: nil, now: now) }
            } while !rateReplies.isEmpty
            var failure: Error?
            while sender.pollTransmit({ transmit in
                switch transmit {
                case .rtp(let packet): forward.send(Array(packet), trailer: srtpTrailer, now: now, random: &random)
                case .rtcp(let compound):
                    do {
                        forward.send(try RTCPPacket.serialized(compound), trailer: srtcpTrailer, now: now, random: &random)
                    } catch {
                        failure = error
                    }
                }
            }) {}
            if let failure { throw failure }
            while let event = sender.pollEvent() {
                if case .report(let statistics) = event { outcome.senderReports.append(statistics) }
            }
        }

        func drainReceiver() throws {
            while let event = receiver.pollEvent() {
                switch event {
                case .decode(let received):
                    // One reference frame: shown when it is an IDR or the picture before it was shown.
                    let index = Int((Int64(received.rtpTimestamp.rawValue) * Int64(scenario.frameRate) + 45_000) / 90_000)
                    if received.frame.isKeyframe || lastShownIndex.map({ $0 + 1 == index }) == true {
                        if received.frame.isKeyframe { receiver.handle(keyframeDecoded: now) }
                        lastShownIndex = index
                        outcome.framesShown += 1
                        outcome.shownAt.append(now - start)
                        receiver.handle(pictureShown: (scenario.width, scenario.height), now: now)
                    } else {
                        receiver.handle(decodeFailed: now)
                    }
                }
            }
            while let compound = receiver.pollTransmit() {
                backward.send(try RTCPPacket.serialized(compound), trailer: srtcpTrailer, now: now, random: &random)
            }
        }

        try drainSender()
        while now < end {
            while let datagram = forward.receive(now: now) {
                if RTCPPacket.isMultiplexedRTCP(datagram[...]) {
                    receiver.handle(rtcp: try RTCPPacket.parseCompound(datagram), now: now)
                } else {
                    datagram.withUnsafeBytes { receiver.handle(rtp: $0, now: now) }
                }
                try drainReceiver()
            }
            while let datagram = backward.receive(now: now) {
                sender.handle(rtcp: try RTCPPacket.parseCompound(datagram), now: now)
                try drainSender()
            }
            if let due = sender.pollTimeout(), due <= now {
                sender.handleTimeout(now: now)
                try drainSender()
            }
            if let due = receiver.pollTimeout(), due <= now {
                receiver.handleTimeout(now: now)
                try drainReceiver()
            }
            if nextFrame <= now, nextFrame < encodeEnd {
                let output = encoder.encode(captureTime: nextFrame, random: &random)
                outcome.framesEncoded += 1
                sender.handle(encoded: output, now: now)
                try drainSender()
                frameIndex += 1
                nextFrame = start + frameInterval * frameIndex
            }
            var next = end
            for candidate in [
                nextFrame < encodeEnd ? nextFrame : nil, sender.pollTimeout(), receiver.pollTimeout(),
                forward.nextArrival, backward.nextArrival,
            ] {
                if let candidate, candidate < next { next = candidate }
            }
            if next <= now {
                outcome.stalledSteps += 1
                next = now + .microseconds(100)
            }
            now = next
        }
        sender.finish(error: nil, now: now)
        try drainSender()
        outcome.sender = sender.snapshot(now: now)
        outcome.receiver = receiver.snapshot(now: now)
        outcome.forward = forward.counters
        outcome.backward = backward.counters
        return outcome
    }
}
