import Testing
@testable import Sender

/// The BYE after the last frame: one frame interval, or with NACK two repair rounds of the last frames' losses.
@Suite struct FinalDelayTests {
    @Test(arguments: [
        // (frame rate, NACK, RTT s, expected ms)
        (30.0, false, 0.3, 33),  // no NACK: one frame interval
        (30.0, true, nil, 33),  // no round trip known: one frame interval
        (30.0, true, 0.3, 700),  // 2 x 300 ms + 100 ms
        (30.0, true, 0.01, 120),  // a short path: 2 x 10 ms + 100 ms
        (30.0, true, 0.8, 1000),  // at most 1 s
        (5.0, true, 0.0, 100),  // a slow source: 100 ms; a zero RTT is no round trip
        (30.0, true, .infinity, 33),  // nonsense: never a trap
        (30.0, true, -1, 33),
        (30.0, true, .nan, 33),
    ] as [(Double, Bool, Double?, Int)])
    func theBYEWaitsForTheLastRepairs(frameRate: Double, nack: Bool, rtt: Double?, expected: Int) {
        let delay = H264Sender.finalDelay(frameRate: frameRate, nack: nack, roundTripTime: rtt)
        #expect(abs((delay - .milliseconds(expected)) / .milliseconds(1)) < 1, "\(delay)")
    }
}
