public import STUN

/// How a `TURNClient` reaches and authenticates to its server.
public struct TURNClientConfiguration: Sendable, Equatable {
    /// The transport between the client and the server (the relay itself is always UDP).
    public enum Transport: String, Sendable, Equatable {
        /// `turn:host?transport=udp` (the default).
        case udp
        /// `turn:host?transport=tcp`: frames on a stream, no retransmissions.
        case tcp
        /// `turns:host`: TCP with TLS.
        case tls

        /// Whether messages travel on a byte stream (framed, ChannelData padded, never retransmitted).
        public var isStream: Bool { self != .udp }
    }

    /// The server's address.
    public var server: TransportAddress
    /// The long-term credential.
    public var credential: LongTermCredential
    /// The transport to the server.
    public var transport: Transport
    /// The allocation lifetime asked for (the server may grant less); refreshed a minute before it ends.
    public var requestedLifetime: Duration = .seconds(600)
    /// The first retransmission timeout over UDP (RFC 8489 section 6.2.1 RTO); doubled after each try.
    public var retransmissionTimeout: Duration = .milliseconds(500)
    /// Transmissions of a request over UDP before giving up (RFC 8489 Rc); the last waits 16 RTO (Rm).
    public var maximumTransmissions = 7
    /// SOFTWARE sent in requests, or nil.
    public var software: String? = "rtc-h264"

    /// Creates a configuration.
    /// - Parameters:
    ///   - server: The TURN server's address.
    ///   - credential: The long-term credential.
    ///   - transport: UDP, TCP or TLS to the server.
    public init(server: TransportAddress, credential: LongTermCredential, transport: Transport = .udp) {
        self.server = server
        self.credential = credential
        self.transport = transport
    }

    /// How long a request waits in all before it times out: RTO x (2^Rc - 1 + 16 - 2^(Rc-1)) over UDP (39.5 s with
    /// the defaults), the same span over a stream.
    public var transactionTimeout: Duration { schedule.timeout }

    /// The UDP retransmission schedule these values give.
    var schedule: RetransmissionSchedule {
        RetransmissionSchedule(retransmissionTimeout: retransmissionTimeout, transmissions: maximumTransmissions)
    }
}
