import MediaTime
import RTP
@testable import Sender
import Testing

/// Issue 25, items 1 and 2 on the sans-IO session: which packets carry `abs-capture-time` (libwebrtc's
/// `AbsoluteCaptureTimeSender` rule: keyframes, after a second, when interpolation would be off by > 1 ms; the frame's
/// first packet) and `playout-delay` (every packet of the first frame and of keyframes), next to the transport-wide
/// number; capture times that go backwards or jump by hours.
@Suite struct HeaderExtensionSessionTests {
    static let captureID: UInt8 = 4
    static let delayID: UInt8 = 5
    static let delay = PlayoutDelay(minimumMilliseconds: 0, maximumMilliseconds: 0)!

    static func harness() throws -> SenderSessionHarness {
        var scenario = SessionSimulation.Scenario()
        scenario.width = 320
        scenario.height = 240
        scenario.bitrate = 500_000
        scenario.absoluteCaptureTimeID = captureID
        scenario.playoutDelay = (delay, delayID)
        return try SenderSessionHarness(scenario)
    }

    /// What one packet carries.
    static func extensions(of packet: [UInt8]) throws -> (capture: NTPTimestamp?, delay: PlayoutDelay?, transport: SequenceNumber?) {
        try packet.withUnsafeBytes { bytes in
            (try AbsoluteCaptureTime.read(from: bytes, id: captureID)?.captureTimestamp,
             try PlayoutDelay.read(from: bytes, id: delayID),
             try TransportSequenceNumber.read(from: bytes, id: SessionSimulation.transportCCID))
        }
    }

    /// The capture time as the Sender Reports map time: the wall clock at the session's start plus the distance.
    static func wall(_ capture: MonotonicTime) -> NTPTimestamp {
        SessionSimulation.wallClockAtStart.advanced(by: capture - SessionSimulation.start)
    }

    @Test func captureTimeOnKeyframesOncePerSecondAndPlayoutDelayOnKeyframes() throws {
        let sender = try Self.harness()
        let start = SessionSimulation.start
        var captures: [MonotonicTime] = []
        for index in 0..<75 {
            let capture = start + .nanoseconds(Int64(index) * 33_333_333)
            captures.append(capture)
            sender.advance(to: capture)
            sender.send(payloadSize: 2_500, keyframe: index == 0 || index == 40, now: capture)
        }
        sender.advance(to: start + .seconds(3))
        let packets = sender.rtpSent()
        // Frames by RTP timestamp, in order; each packet's extensions.
        var frames: [(timestamp: RTPTimestamp, packets: [[UInt8]])] = []
        for packet in packets {
            if frames.last?.timestamp == packet.header.timestamp {
                frames[frames.count - 1].packets.append(packet.bytes)
            } else {
                frames.append((packet.header.timestamp, [packet.bytes]))
            }
        }
        #expect(frames.count == 75)
        var withCaptureTime: [Int] = []
        var withDelay: [Int] = []
        var transport: [UInt16] = []
        for (index, frame) in frames.enumerated() {
            #expect(frame.packets.count >= 2)
            for (position, packet) in frame.packets.enumerated() {
                let found = try Self.extensions(of: packet)
                transport.append(try #require(found.transport).rawValue)
                if let capture = found.capture {
                    #expect(position == 0, "frame \(index): the capture time on the first packet only")
                    #expect(capture == Self.wall(captures[index]))
                    withCaptureTime.append(index)
                }
                if found.delay != nil {
                    #expect(found.delay == Self.delay)
                    if position == 0 { withDelay.append(index) }
                } else {
                    #expect(!withDelay.contains(index), "frame \(index): the delay on every packet or none")
                }
            }
        }
        // Keyframes 0 and 40; frame 31 is the first more than a second after frame 0, frame 71 after frame 40.
        #expect(withCaptureTime == [0, 31, 40, 71])
        #expect(withDelay == [0, 40])
        #expect(transport == Array(1...UInt16(packets.count)))
    }

    /// Capture times that go backwards, jump by hours or lie at the ends of the clock: no trap, RTP timestamps
    /// strictly increasing, and every such frame carries the capture time the wall-clock mapping gives.
    @Test func capturesThatGoBackOrJumpKeepTimestampsMonotonic() throws {
        let sender = try Self.harness()
        let start = SessionSimulation.start
        let hour = Duration.seconds(3600)
        let captures: [MonotonicTime] = [
            start, start + .milliseconds(33), start + .milliseconds(33), start - hour, start - hour + .milliseconds(33),
            start + hour * 7, start + hour * 7 + .milliseconds(33), MonotonicTime(nanoseconds: .min),
            MonotonicTime(nanoseconds: .max), start + .milliseconds(66),
        ]
        var now = start
        for capture in captures {
            now = now + .milliseconds(33)
            sender.advance(to: now)
            sender.send(payloadSize: 800, captureTime: capture, now: now)
        }
        sender.advance(to: now + .seconds(1))
        let packets = sender.rtpSent()
        var timestamps: [RTPTimestamp] = []
        var carried: [NTPTimestamp?] = []
        for packet in packets where timestamps.last != packet.header.timestamp {
            timestamps.append(packet.header.timestamp)
            carried.append(try Self.extensions(of: packet.bytes).capture)
        }
        #expect(timestamps.count == captures.count)
        for (previous, next) in zip(timestamps, timestamps.dropFirst()) {
            #expect(Int32(bitPattern: next.rawValue &- previous.rawValue) > 0, "\(previous) -> \(next)")
        }
        // The repeated capture time is re-anchored one tick on (11 us: within the 1 ms a receiver may interpolate).
        #expect(timestamps[2].rawValue == timestamps[1].rawValue &+ 1)
        for index in [0, 3, 5, 7, 8, 9] {
            #expect(carried[index] == Self.wall(captures[index]), "frame \(index)")
        }
        for index in [1, 2, 4, 6] { #expect(carried[index] == nil, "frame \(index): 33 ms on, interpolated") }
    }

    /// Without the IDs nothing of either extension is written, and the payload limit is as before.
    @Test func withoutTheIDsNoElement() throws {
        var scenario = SessionSimulation.Scenario()
        scenario.width = 320
        scenario.height = 240
        let sender = try SenderSessionHarness(scenario)
        #expect(scenario.senderConfiguration().payloadLimit.rtpHeaderSize == 20)
        sender.send(payloadSize: 2_500, keyframe: true, now: SessionSimulation.start)
        sender.advance(to: SessionSimulation.start + .seconds(1))
        for packet in sender.rtpSent() {
            let found = try Self.extensions(of: packet.bytes)
            #expect(found.capture == nil && found.delay == nil && found.transport != nil)
        }
        var extended = scenario
        extended.absoluteCaptureTimeID = Self.captureID
        extended.playoutDelay = (Self.delay, Self.delayID)
        #expect(extended.senderConfiguration().payloadLimit.rtpHeaderSize == 32)
    }
}
