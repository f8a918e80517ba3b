public import STUN

/// A datagram an ICE agent wants sent from its socket.
public struct ICETransmit: Hashable, Sendable {
    /// Where to send it.
    public var destination: TransportAddress
    /// The STUN message bytes.
    public var bytes: [UInt8]

    /// Creates a datagram.
    /// - Parameters:
    ///   - destination: Where to send it.
    ///   - bytes: The STUN message bytes.
    public init(destination: TransportAddress, bytes: [UInt8]) {
        self.destination = destination
        self.bytes = bytes
    }
}
