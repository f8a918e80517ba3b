import Codec
import MediaTime
import RTP
@testable import Sender
import TestSupport
import Testing

/// The transport-wide sequence number (draft-holmer-rmcat-transport-wide-cc-extensions-01) on every packet the
/// session hands out, media and RTX alike, written as each leaves: the numbers follow the order of `pollTransmit`
/// with no gap and no repeat, starting at 1, through the pacer.
@Suite struct TransportWideSequenceSessionTests {
    @Test func everyPacketCarriesTheNextNumberInWireOrder() throws {
        let extensionID: UInt8 = 5
        var encoder = EncoderConfiguration(width: 320, height: 240, frameRate: 30, targetBitrate: 500_000)
        encoder.profile = .constrainedBaseline
        var configuration = SenderConfiguration(peerHost: "127.0.0.1", peerPort: 5004, encoder: encoder)
        configuration.transportWideCCExtensionID = extensionID
        configuration.rtx = SenderConfiguration.RTX(payloadType: PayloadType(97), ssrc: SSRC(0xAB_CDEF))
        let session = try SenderSession(
            configuration: configuration,
            identity: StreamIdentity(ssrc: SSRC(0x1234), rtxSSRC: SSRC(0xAB_CDEF), firstSequenceNumber: SequenceNumber(100),
                                     timestampOffset: 0),
            payloadLimit: configuration.payloadLimit, now: .zero, wallClock: NTPTimestamp(rawValue: 1 << 40))
        var sent: [[UInt8]] = []
        func drain(until time: MonotonicTime) {
            while let due = session.pollTimeout(), due <= time {
                session.handleTimeout(now: due)
                while session.pollTransmit({ if case .rtp(let packet) = $0 { sent.append(Array(packet)) } }) {}
            }
            while session.pollTransmit({ if case .rtp(let packet) = $0 { sent.append(Array(packet)) } }) {}
        }
        let statistics = EncodeStatistics(size: 0, averageQP: nil, encodeDuration: .zero, keyframeRequested: false)
        for index in 0..<15 {
            let capture = MonotonicTime(nanoseconds: Int64(index) * 33_333_333)
            drain(until: capture)
            let frame = EncoderModel.accessUnit(payloadSize: 2_500, isKeyframe: index == 0, index: index)
            session.handle(encoded: .frame(frame, statistics, captureTime: capture, keyframeRequestedAt: nil), now: capture)
            drain(until: capture)
        }
        drain(until: ms(1_000))
        let third = try RTPPacketView(parsing: sent[2]).header.sequenceNumber
        session.handle(rtcp: [.nack(GenericNACK(senderSSRC: SSRC(42), mediaSSRC: SSRC(0x1234), lost: [third]))], now: ms(1_000))
        drain(until: ms(1_100))

        #expect(sent.count > 15)
        let numbers = try sent.map { packet in
            try packet.withUnsafeBytes { try TransportSequenceNumber.read(from: $0, id: extensionID) }?.rawValue
        }
        #expect(numbers == Array(1...UInt16(sent.count)).map { Optional($0) })
        let last = try RTPPacketView(parsing: sent[sent.count - 1])
        #expect(last.header.ssrc == SSRC(0xAB_CDEF), "the retransmission is the last packet, on the RTX SSRC")
        #expect(last.header.payloadType == PayloadType(97))
        #expect(session.snapshot(now: ms(1_100)).retransmittedPacketsSent == 1)
    }
}
