import Codec

/// A command from the operator, through the control endpoint (`rtc-h264 control`, curl, a script).
public enum ControlCommand: Sendable, Equatable {
    /// Sets the operator's target bitrate in bit/s (the ceiling follows at 1.5x).
    case setBitrate(Int)
    /// Sets the frame rate in frames per second.
    case setFrameRate(Double)
    /// Sets what the encoder gives up first (`maintain-framerate`, `maintain-resolution` or `balanced`).
    case setDegradationPreference(DegradationPreference)
    /// Asks for a keyframe (subject to the keyframe throttle).
    case requestKeyframe
    /// Asks for the current statistics.
    case stats
    /// Asks for the statistics as Prometheus metrics (`GET /metrics`).
    case metrics

    /// The command's name, as `rtc-h264 control` spells it (`bitrate`, `framerate`, `degradation-preference`,
    /// `keyframe`, `stats`, `metrics`).
    public var name: String {
        switch self {
        case .setBitrate: "bitrate"
        case .setFrameRate: "framerate"
        case .setDegradationPreference: "degradation-preference"
        case .requestKeyframe: "keyframe"
        case .stats: "stats"
        case .metrics: "metrics"
        }
    }
}

/// The answer to a `ControlCommand`: an HTTP status and a body, JSON but for `/metrics`.
public struct ControlReply: Sendable, Equatable {
    /// HTTP status code: 200 on success, 400 for a bad command, 404 for an unknown path, 405 for a wrong method.
    public var status: Int
    /// A JSON document (Prometheus text for `/metrics`).
    public var body: String
    /// The body's media type.
    public var contentType = "application/json"

    /// Creates a reply.
    /// - Parameters:
    ///   - status: the HTTP status code.
    ///   - body: a JSON document.
    public init(status: Int, body: String) {
        self.status = status
        self.body = body
    }

    /// A 200 reply with `{"ok":true, ...fields}`.
    /// - Parameter fields: extra JSON members, already encoded as `"name":value` strings.
    public static func ok(_ fields: [String] = []) -> ControlReply {
        ControlReply(status: 200, body: "{" + (["\"ok\":true"] + fields).joined(separator: ",") + "}")
    }

    /// An error reply with `{"ok":false,"error":"..."}`.
    /// - Parameters:
    ///   - status: the HTTP status code.
    ///   - message: what was wrong.
    public static func error(_ status: Int, _ message: String) -> ControlReply {
        ControlReply(status: status, body: "{\"ok\":false,\"error\":\(JSONString.quote(message))}")
    }
}

/// Minimal JSON string quoting (RFC 8259) for text built by hand: the control replies and the command-line tool's
/// JSON log lines.
package enum JSONString {
    /// `s` as a JSON string literal: quotes, backslashes and control characters escaped.
    package static func quote(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let c where c.value < 0x20:
                let hex = String(c.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
