import MediaTime
import RTP
import Receiver
import Testing

/// The receiver's first report goes 100 ms after the first packet, so that the sender's answer to its RRTR (DLRR in
/// the next SR) gives the round trip within about a second; it carries no report block (the loss over 100 ms of
/// packets would be noise to the sender's loss estimate and FEC). The reports after it are the usual ones.
@Suite struct FirstReportSessionTests {
    @Test func theFirstReportIsEarlyAndCarriesOnlyTheReferenceTime() throws {
        var scenario = SessionSimulation.Scenario()
        scenario.pacing = false
        scenario.transportCC = false
        let start = SessionSimulation.start
        let sender = try SenderSessionHarness(scenario)
        let receiver = try ReceiverSessionHarness(scenario)
        var forwarded = 0
        let firstPacketAt = start + .milliseconds(400)  // the receiver was up before the sender
        for index in 0..<75 {  // 2.5 s at 30 fps
            let time = firstPacketAt + .seconds(1) / 30 * index
            try receiver.advance(to: time)
            sender.advance(to: time)
            sender.send(payloadSize: index == 0 ? 6_000 : 2_000, keyframe: index == 0, now: time)
            for sent in sender.transmitted[forwarded...] {
                switch sent.packet {
                case .rtp(let bytes): receiver.deliver(bytes, at: sent.at)
                case .rtcp(let compound): receiver.deliver(try RTCPPacket.serialized(compound), at: sent.at)
                }
            }
            forwarded = sender.transmitted.count
        }
        try receiver.advance(to: firstPacketAt + .milliseconds(2_600))
        let reports = receiver.transmitted.filter { report in
            report.compound.contains { if case .receiverReport = $0 { true } else { false } }
                && report.compound.contains { if case .extendedReport = $0 { true } else { false } }
        }
        try #require(reports.count >= 3, "\(receiver.transmitted.map(\.at))")
        // The first: 100 ms after the first packet, an RR without a report block and the RRTR.
        #expect(reports[0].at == firstPacketAt + .milliseconds(100))
        for packet in reports[0].compound {
            if case .receiverReport(let rr) = packet { #expect(rr.reportBlocks.isEmpty) }
            if case .extendedReport(let xr) = packet {
                #expect(xr.blocks.contains { if case .receiverReferenceTime = $0 { true } else { false } })
            }
        }
        // Then the usual reports, each with its report block about the stream, a report interval apart.
        for report in reports.dropFirst() {
            let blocks = report.compound.compactMap { if case .receiverReport(let rr) = $0 { rr.reportBlocks } else { nil } }
            #expect(blocks.first?.count == 1, "report at \(report.at)")
        }
        #expect(reports[2].at - reports[1].at == scenario.receiverReportInterval)
    }
}
