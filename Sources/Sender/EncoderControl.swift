import MediaTime
import NIOCore
import RTP

/// How a `SenderSessionDriver` reaches the encoder it sends from: keyframe requests and rate changes.
///
/// An `H264Sender` has encoders of its own (`EncoderSet`: one, or one per simulcast encoding); the viewers of a WHEP server share one (WHEP's
/// `FanOutEncoder.ViewerControl`), whose keyframe requests meet in one throttle and whose rates follow the weakest
/// viewer (WHEP's `RateArbiter`). The core does not know which: it only moves its wishes here.
package protocol EncoderControl: Sendable {
    /// Records a keyframe request (served within the keyframe throttle's window).
    /// - Parameter now: when the request arrived.
    func requestKeyframe(at now: MonotonicTime)

    /// Records a keyframe request for one simulcast stream's encoder.
    /// - Parameters:
    ///   - now: when the request arrived.
    ///   - stream: the stream's index (nil: every encoder).
    func requestKeyframe(at now: MonotonicTime, stream: Int?)

    /// Asks for a new target and ceiling; the future succeeds once the encoder applied what it will apply.
    /// - Parameters:
    ///   - target: the target this core wants, in bit/s.
    ///   - ceiling: the ceiling this core wants, in bit/s.
    /// - Returns: a future on any loop; failed when the encoder refused (nothing changed then).
    func setRates(target: Int, ceiling: Int) -> EventLoopFuture<Void>
}

extension EncoderControl {
    /// One encoder: every request goes to it.
    package func requestKeyframe(at now: MonotonicTime, stream: Int?) {
        requestKeyframe(at: now)
    }
}
