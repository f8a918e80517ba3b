/// What `H264Receiver` listens for and what it does with the stream.
public struct ReceiverConfiguration: Sendable {
    /// The address to listen on.
    public var listenHost: String
    /// The RTP port (RTCP too when muxed, else `listenPort + 1`).
    public var listenPort: Int
    /// RTCP multiplexed on the RTP port (RFC 5761).
    public var rtcpMux: Bool = true
    /// SRTP settings (the sender's key), or nil for plain RTP.
    public var security: SenderConfiguration.Security?
    /// Stop after this many frames decoded (nil: no limit).
    public var frameLimit: Int?
    /// Stop this many seconds after the first packet (nil: no limit).
    public var duration: Double?
    /// Stop when the sender says BYE.
    public var stopOnBye: Bool = true
    /// Stop if no packet arrives for this many seconds after the first one (nil: wait for ever).
    public var idleTimeout: Double? = nil
    /// The RTCP CNAME.
    public var cname: String = "rtc-h264-receiver"
    /// How often Receiver Reports are sent, and how often an unanswered PLI is repeated, in nanoseconds.
    public var reportInterval: Int64 = 1_000_000_000
    /// Packets held while waiting for a missing one before it is declared lost.
    public var reorderWindow: Int = 64

    /// Creates a configuration.
    /// - Parameters:
    ///   - listenHost: the local address.
    ///   - listenPort: the local RTP port.
    public init(listenHost: String, listenPort: Int) {
        self.listenHost = listenHost
        self.listenPort = listenPort
    }
}
