/// An IP address and a UDP port: where a datagram came from or goes to, as ICE and STUN see it.
public struct TransportAddress: Hashable, Sendable, CustomStringConvertible {
    /// The IP address.
    public var ip: IPAddress
    /// The UDP port.
    public var port: UInt16

    /// Creates an address.
    /// - Parameters:
    ///   - ip: The IP address.
    ///   - port: The UDP port.
    public init(ip: IPAddress, port: UInt16) {
        self.ip = ip
        self.port = port
    }

    /// Parses an IP address text and a port.
    /// - Parameters:
    ///   - ipString: `192.0.2.1` or `2001:db8::1`.
    ///   - port: The UDP port.
    /// - Returns: `nil` when the address text does not parse.
    public init?(ipString: String, port: UInt16) {
        guard let ip = IPAddress(ipString) else { return nil }
        self.init(ip: ip, port: port)
    }

    /// `192.0.2.1:3478` or `[2001:db8::1]:3478`.
    public var description: String { ip.isIPv6 ? "[\(ip)]:\(port)" : "\(ip):\(port)" }
}
