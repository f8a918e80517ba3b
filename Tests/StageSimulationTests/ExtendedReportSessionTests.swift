import Testing

/// RTCP XR between the real sessions (RFC 3611): the receiver's Receiver Reference Time, the sender's DLRR, and the
/// receiver's round-trip time from them, on a lossless path where no NACK could have measured it.
@Suite struct ExtendedReportSessionTests {
    @Test(arguments: [25, 100])
    func theReceiverKnowsTheRoundTripFromXRWithoutALostPacket(oneWayMilliseconds: Int) throws {
        var scenario = SessionSimulation.Scenario()
        scenario.seconds = 5
        scenario.width = 320
        scenario.height = 240
        scenario.bitrate = 300_000
        scenario.forward.delay = .milliseconds(oneWayMilliseconds)
        scenario.backward.delay = .milliseconds(oneWayMilliseconds)
        let outcome = try SessionSimulation(scenario).run()
        #expect(outcome.receiver.nackCount == 0, "a lossless path: no NACK")
        let rtt = try #require(outcome.receiver.extendedReportRoundTripTime, "no RTT from XR after 5 s")
        let expected = Double(2 * oneWayMilliseconds) / 1000
        // The sender answers in its next report (up to a report interval later); DLRR subtracts that wait to 1/65536 s.
        #expect(abs(rtt - expected) < 0.002, "XR RTT \(rtt) s, path \(expected) s")
        let smoothed = try #require(outcome.receiver.roundTripTime)
        #expect(abs(smoothed - expected) < 0.002)
    }
}
