import Testing
@testable import Receiver

/// Issue 12, item 4: the jitter buffer waits as long as retransmission can still repair a loss, no longer.
@Suite struct RepairWaitTests {
    static let policy = RepairWait(minimum: .milliseconds(300), maximum: .seconds(1))

    @Test(arguments: [
        // (RTT ms, jitter ms, expected wait ms), resend margin 20 ms
        (nil, 0, 1000),  // not measured yet: the unknown-RTT wait (1 s), within the budget
        (50, 0, 300),  // 260 ms: the least wait still gives several NACK rounds
        (50, 10, 300),  // 300 ms
        (60, 10, 340),  // 240 + 60 + 40
        (200, 0, 860),  // 10 % loss at 100 ms each way: four tries, 4 RTT + 3 margins
        (200, 10, 900),  // + 4 x jitter
        (500, 0, 1000),  // capped at the latency budget
        (-5, 0, 300),  // a nonsense sample cannot shorten it
    ] as [(Int?, Int, Int)])
    func waitFollowsTheRoundTrip(rtt: Int?, jitter: Int, expected: Int) {
        let wait = Self.policy.wait(
            roundTripTime: rtt.map { .milliseconds($0) }, jitter: .milliseconds(jitter), resendMargin: .milliseconds(20))
        #expect(wait == .milliseconds(expected))
    }

    @Test func hugeValuesNeverTrapAndStayWithinTheBudget() {
        #expect(Self.policy.wait(roundTripTime: .seconds(Int64.max), jitter: .seconds(Int64.max), resendMargin: .seconds(Int64.max))
            == .seconds(1))
        #expect(Self.policy.wait(roundTripTime: .seconds(Int64.min), jitter: .seconds(Int64.min)) == .milliseconds(300))
    }

    @Test func theWaitBeforeAnRTTIsKnownStaysWithinTheBounds() {
        #expect(RepairWait(minimum: .milliseconds(300), maximum: .seconds(2)).wait(roundTripTime: nil) == .seconds(1))
        #expect(RepairWait(minimum: .milliseconds(300), maximum: .milliseconds(500)).wait(roundTripTime: nil)
            == .milliseconds(500))
        #expect(RepairWait(minimum: .milliseconds(300), maximum: .seconds(2), unknownRoundTrip: .milliseconds(100))
            .wait(roundTripTime: nil) == .milliseconds(300))
    }

    @Test func aMaximumBelowTheMinimumIsRaisedToIt() {
        let policy = RepairWait(minimum: .milliseconds(400), maximum: .milliseconds(100))
        #expect(policy.maximum == .milliseconds(400))
        #expect(policy.wait(roundTripTime: .seconds(2)) == .milliseconds(400))
    }
}
