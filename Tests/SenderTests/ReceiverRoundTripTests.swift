import Codec
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import RTP
import Receiver
import Testing
import Transport
import Video

/// Issue 12, item 4: the receiver learns an RTT longer than the 100 ms it assumes, and its jitter buffer then waits
/// for four NACK tries (regression: on the 10 % / 100 ms path every NACK was repeated before its answer could come,
/// Karn's rule threw every sample away, and the wait stayed at 300 ms).
@Suite(.serialized) struct ReceiverRoundTripTests {
    /// A scripted sender on a real socket: it drops the first packet of frames 5, 15 and 25 and answers the first
    /// NACK for each 250 ms later (repeats unanswered), as a 250 ms RTT path would.
    @Test func aLongRoundTripIsLearnedThroughTheNACKBackOff() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        var receiverConfiguration = ReceiverConfiguration(listenHost: "127.0.0.1", listenPort: 0)
        receiverConfiguration.reportInterval = .milliseconds(200)
        let receiver = try await H264Receiver(configuration: receiverConfiguration)
        let target = try SocketAddress(ipAddress: "127.0.0.1", port: receiver.localPort)
        let held = NIOLockedValueBox<[UInt16: [UInt8]]>([:])
        let answered = NIOLockedValueBox<Set<UInt16>>([])
        let endpointBox = NIOLockedValueBox<DatagramEndpoint?>(nil)
        let endpoint = try await DatagramEndpoint(
            host: "127.0.0.1", port: 0, eventLoop: loop,
            onDatagram: { _, buffer in
                let packets = (try? RTCPPacket.parseCompound([UInt8](buffer.readableBytesView))) ?? []
                for case .nack(let nack) in packets {
                    for sequenceNumber in nack.lostSequenceNumbers {
                        let first = answered.withLockedValue { $0.insert(sequenceNumber.rawValue).inserted }
                        guard first, let packet = held.withLockedValue({ $0[sequenceNumber.rawValue] }) else { continue }
                        loop.scheduleTask(in: .milliseconds(250)) {
                            guard let endpoint = endpointBox.withLockedValue({ $0 }) else { return }
                            endpoint.write(ByteBuffer(bytes: packet), to: target)
                            endpoint.flush()
                        }
                    }
                }
            }, onError: { _ in })
        endpointBox.withLockedValue { $0 = endpoint }
        async let stats = receiver.run()

        let encoder = try H264Encoder(configuration: EncoderConfiguration(width: 320, height: 240, frameRate: 30, targetBitrate: 300_000))
        var packetizer = try H264Packetizer(
            ssrc: SSRC(77), payloadType: PayloadType(96), firstSequenceNumber: SequenceNumber(100), srtpTrailerSize: 0)
        let pattern = try TestPattern(width: 320, height: 240)
        let start = ContinuousClock.now
        for index in 0..<60 {
            try await loop.submit {
                guard case .frame(let encoded, _) = try encoder.encode(
                    .i420(pattern.frame(index)), timestamp: Int64(index * 3000), forceKeyframe: index == 0)
                else { return }
                for (offset, packet) in try packetizer.packetize(encoded, timestamp: RTPTimestamp(UInt32(index * 3000))).enumerated() {
                    if offset == 0, [5, 15, 25].contains(index) {
                        let sequenceNumber = UInt16(packet[2]) << 8 | UInt16(packet[3])
                        held.withLockedValue { $0[sequenceNumber] = packet }
                        continue
                    }
                    endpoint.write(ByteBuffer(bytes: packet), to: target)
                }
                endpoint.flush()
            }.get()
            try await Task.sleep(until: start + .milliseconds(33 * (index + 1)))
        }
        try await Task.sleep(for: .milliseconds(500))
        receiver.stop()
        let final = try await stats
        await endpoint.close()
        let rtt = try #require(final.roundTripTime, "no RTT learned: \(final)")
        #expect(rtt > 0.24 && rtt < 0.35, "RTT \(rtt)")
        #expect(final.packetsLost == 0, "every dropped packet repaired: \(final)")
        #expect(final.retransmittedPacketsReceived == 3)
        // Four tries: 4 x RTT + 3 x 20 ms (+ jitter), above the 300 ms floor, capped at the 1 s budget.
        let wait = try #require(final.jitterBufferWait)
        #expect(wait >= min(4 * rtt + 0.06, 1.0) - 0.001 && wait <= 1.0, "wait \(wait)")
    }
}
