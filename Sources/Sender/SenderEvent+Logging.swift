import Logging

extension SenderEvent {
    /// The level a sender logs this event at: what an operator watches (resolution switches, failures) at `info` and
    /// above, the rate decisions and keyframe requests at `debug`, frames a busy encoder replaced at `trace`.
    var logLevel: Logger.Level {
        switch self {
        case .resolutionChanged: .info
        case .bitrateChangeFailed: .warning
        case .frameDropped(.failure): .warning
        case .frameDropped(.encoderBusy): .trace
        case .frameDropped(.rateControl): .debug
        case .keyframeRequested, .keyframeSent, .bitrateChanged: .debug
        }
    }

    /// One line for the log; the values go in the metadata.
    var logMessage: Logger.Message {
        switch self {
        case .keyframeRequested: "keyframe requested"
        case .keyframeSent: "keyframe sent"
        case .bitrateChanged: "target bitrate changed"
        case .bitrateChangeFailed: "a bitrate limit could not be applied"
        case .frameDropped: "frame dropped"
        case .resolutionChanged: "resolution changed"
        }
    }

    /// The event's values, for the log.
    var logMetadata: Logger.Metadata {
        switch self {
        case .keyframeRequested(let reason): ["reason": "\(reason.rawValue)"]
        case .keyframeSent(let latency):
            latency.map { ["latency_ms": "\(($0 / .milliseconds(1)).rounded(toPlaces: 1))"] } ?? ["periodic": "true"]
        case .bitrateChanged(let target, let reason): ["target_bps": "\(target)", "reason": "\(reason.rawValue)"]
        case .bitrateChangeFailed(let why): ["error": "\(why)"]
        case .frameDropped(.encoderBusy): ["reason": "encoder-busy"]
        case .frameDropped(.rateControl(let why)): ["reason": "rate-control", "detail": "\(why)"]
        case .frameDropped(.failure(let why)): ["reason": "failure", "error": "\(why)"]
        case .resolutionChanged(let width, let height, let reason):
            ["width": "\(width)", "height": "\(height)", "reason": "\(reason)"]
        }
    }
}

extension Double {
    /// Rounded to `places` decimals (for log values).
    fileprivate func rounded(toPlaces places: Int) -> Double {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        return (self * scale).rounded() / scale
    }
}
