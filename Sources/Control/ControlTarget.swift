import Codec

/// What the control endpoint drives: an `H264Sender` (`rtc-h264 send --control`) or a WHEP server's shared encoder
/// (`rtc-h264 serve --control`). `ControlServer` speaks only to this, so both get the same endpoint, token rules and
/// limits from one server.
///
/// A target that cannot carry out a command throws `ControlTargetError.notApplicable` with the reason; the endpoint
/// answers it with 409 and that reason, never with a silent 200.
public protocol ControlTarget: AnyObject, Sendable {
    /// The statistics `GET /stats` returns, as JSON.
    associatedtype Statistics: Encodable & Sendable

    /// Sets the operator's bitrate.
    /// - Parameter bitsPerSecond: the target in bit/s.
    /// - Returns: the target and ceiling the encoder applies now, in bit/s.
    /// - Throws: `SenderError.invalidRate` (nothing changed), `SenderError.finished`, `ControlTargetError`.
    func applyBitrate(_ bitsPerSecond: Int) async throws -> (target: Int, ceiling: Int)

    /// Sets the frame rate the encoder plans for.
    /// - Parameter framesPerSecond: frames per second.
    /// - Throws: `SenderError.invalidRate` (nothing changed), `SenderError.finished`, `ControlTargetError`.
    func applyFrameRate(_ framesPerSecond: Double) async throws

    /// Sets what the encoder gives up first when the bitrate is short.
    /// - Parameter preference: the preference.
    /// - Throws: `SenderError`, `ControlTargetError`.
    func applyDegradationPreference(_ preference: DegradationPreference) async throws

    /// Asks for a keyframe (within the keyframe throttle's window).
    /// - Throws: `SenderError.finished`, `ControlTargetError`.
    func applyKeyframeRequest() async throws

    /// The statistics now.
    func controlStatistics() async -> Statistics

    /// The statistics now as Prometheus samples (`GET /metrics`).
    func controlMetrics() async -> [MetricSample]
}

/// Why a control target refused a command it cannot carry out now (the endpoint answers 409 with the reason).
public enum ControlTargetError: Error, Equatable, CustomStringConvertible {
    /// The command cannot apply; the reason says why.
    case notApplicable(String)

    public var description: String {
        switch self {
        case .notApplicable(let reason): return reason
        }
    }
}
