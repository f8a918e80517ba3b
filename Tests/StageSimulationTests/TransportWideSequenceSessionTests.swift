import MediaTime
import RTP
@testable import Sender
import Testing

/// The transport-wide sequence number (draft-holmer-rmcat-transport-wide-cc-extensions-01) on every packet the
/// session hands out, media and RTX alike, written as each leaves: the numbers follow the order of `pollTransmit`
/// with no gap and no repeat, starting at 1, through the pacer.
@Suite struct TransportWideSequenceSessionTests {
    @Test func everyPacketCarriesTheNextNumberInWireOrder() throws {
        var scenario = SessionSimulation.Scenario()
        scenario.width = 320
        scenario.height = 240
        scenario.bitrate = 500_000
        let sender = try SenderSessionHarness(scenario)
        let start = SessionSimulation.start
        for index in 0..<15 {
            let capture = start + .nanoseconds(Int64(index) * 33_333_333)
            sender.advance(to: capture)
            sender.send(payloadSize: 2_500, keyframe: index == 0, now: capture)
        }
        sender.advance(to: start + .seconds(1))
        let media = sender.rtpSent()
        let third = media[2].header.sequenceNumber
        sender.receive(
            [.nack(GenericNACK(senderSSRC: SSRC(42), mediaSSRC: SessionSimulation.mediaSSRC, lost: [third]))],
            now: start + .seconds(1))
        sender.advance(to: start + .milliseconds(1_100))

        let sent = sender.rtpSent()
        #expect(sent.count > 15)
        let numbers = try sent.map { packet in
            try packet.bytes.withUnsafeBytes {
                try TransportSequenceNumber.read(from: $0, id: SessionSimulation.transportCCID)
            }?.rawValue
        }
        #expect(numbers == Array(1...UInt16(sent.count)).map { Optional($0) })
        let last = try #require(sent.last)
        #expect(last.header.ssrc == SessionSimulation.rtxSSRC, "the retransmission is the last packet, on the RTX SSRC")
        #expect(last.header.payloadType == SessionSimulation.rtxPayloadType)
        #expect(sender.statistics.retransmittedPacketsSent == 1)
    }
}
