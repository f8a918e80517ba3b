import MediaTime
import NIOCore
import RTP

/// How a `SenderSessionDriver` reaches the encoder it sends from: keyframe requests and rate changes.
///
/// An `H264Sender` has an encoder of its own (`LocalEncoderControl`); the viewers of a WHEP server share one (WHEP's
/// `FanOutEncoder.ViewerControl`), whose keyframe requests meet in one throttle and whose rates follow the weakest
/// viewer (WHEP's `RateArbiter`). The core does not know which: it only moves its wishes here.
package protocol EncoderControl: Sendable {
    /// Records a keyframe request (served within the keyframe throttle's window).
    /// - Parameter now: when the request arrived.
    func requestKeyframe(at now: MonotonicTime)

    /// Asks for a new target and ceiling; the future succeeds once the encoder applied what it will apply.
    /// - Parameters:
    ///   - target: the target this core wants, in bit/s.
    ///   - ceiling: the ceiling this core wants, in bit/s.
    /// - Returns: a future on any loop; failed when the encoder refused (nothing changed then).
    func setRates(target: Int, ceiling: Int) -> EventLoopFuture<Void>
}

/// The encoder of one sender, its own.
struct LocalEncoderControl: EncoderControl {
    let encoder: EncoderComponent

    func requestKeyframe(at now: MonotonicTime) {
        encoder.requestKeyframe(at: now)
    }

    func setRates(target: Int, ceiling: Int) -> EventLoopFuture<Void> {
        encoder.setRates { (target, ceiling) }
    }
}
