import RTP
import Testing

/// The network benchmark's cases (Docs/Benchmarks.md, `network/run.sh`) as simulations of the real sessions, with
/// the benchmark's targets: 720p at 1.5 Mbit/s, NACK + RTX, pacing, congestion control with transport-wide feedback,
/// 60 s per case on a virtual clock.
@Suite struct SessionSimulationTests {
    static func lossy(_ loss: Double, delay: Duration = .milliseconds(25)) -> SessionSimulation.Scenario {
        var scenario = SessionSimulation.Scenario()
        scenario.forward.loss = loss
        scenario.backward.loss = loss
        scenario.forward.delay = delay
        scenario.backward.delay = delay
        return scenario
    }

    static func describe(_ name: String, _ o: SessionSimulation.Outcome, seconds: Int) -> String {
        let freezes = o.freezes(longerThan: .milliseconds(200), end: .seconds(seconds))
        let targets = o.targets.map { String(format: "%.2f", Double($0.bitrate) / 1e6) }.joined(separator: " ")
        return "\(name): shown \(o.framesShown)/\(o.framesEncoded) (\(String(format: "%.2f", o.shownShare * 100)) %), "
            + "freezes > 200 ms \(freezes.count) (longest \(freezes.max().map { "\($0)" } ?? "none")), "
            + "PLIs \(o.receiver.pliCount), NACKs \(o.sender.nackCount), resent \(o.sender.retransmittedPacketsSent), "
            + "RTX \(String(format: "%.1f", o.retransmissionShare * 100)) %, targets [\(targets)], stalled steps \(o.stalledSteps)"
    }

    /// 0, 1, 2 and 5 % random loss both ways, 25 ms each way: at least 99.5 % shown; with loss at most one freeze
    /// over 200 ms and two PLIs a minute, retransmissions at most 10 % of the media.
    @Test(arguments: [0.0, 0.01, 0.02, 0.05])
    func randomLossIsRepaired(loss: Double) throws {
        let outcome = try SessionSimulation(Self.lossy(loss)).run()
        print(Self.describe("loss \(loss)", outcome, seconds: 60))
        #expect(outcome.shownShare >= 0.995)
        #expect(outcome.freezes(longerThan: .milliseconds(200), end: .seconds(60)).count <= (loss == 0 ? 0 : 1))
        #expect(outcome.receiver.pliCount <= 2)
        #expect(outcome.retransmissionShare <= 0.10)
        #expect(outcome.stalledSteps < 100)
    }
}
