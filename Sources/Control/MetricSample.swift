/// One value `GET /metrics` exposes: a Prometheus counter or gauge with its labels, named after the WebRTC
/// `getStats()` field it comes from (`rtc_h264_outbound_frames_sent_total` is `outbound-rtp.framesSent`).
public struct MetricSample: Sendable, Equatable {
    /// Whether the value only grows (a counter, named `..._total`) or moves both ways (a gauge).
    public enum Kind: Sendable, Equatable {
        /// A monotonic count.
        case counter
        /// A value now.
        case gauge
    }

    /// The metric's name (`[a-zA-Z_:][a-zA-Z0-9_:]*`).
    public var name: String
    /// The HELP text.
    public var help: String
    /// Counter or gauge.
    public var kind: Kind
    /// Label names and values, in order (a viewer's id, for example).
    public var labels: [Label]
    /// The value.
    public var value: Double

    /// One label.
    public struct Label: Sendable, Equatable {
        /// The label's name.
        public var name: String
        /// Its value.
        public var value: String

        /// Creates a label.
        /// - Parameters:
        ///   - name: The name.
        ///   - value: The value.
        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    /// Creates a sample.
    /// - Parameters:
    ///   - name: The metric's name.
    ///   - help: The HELP text.
    ///   - kind: Counter or gauge.
    ///   - labels: Labels, in order.
    ///   - value: The value.
    public init(name: String, help: String, kind: Kind, labels: [Label] = [], value: Double) {
        self.name = name
        self.help = help
        self.kind = kind
        self.labels = labels
        self.value = value
    }
}
