import NIOCore

/// A TCP or TLS connection to a TURN server that relays media (RFC 8656 section 12.5: ChannelData frames, padded
/// to 4 bytes, on one byte stream): `UDPTransport` hands it its outgoing packets instead of the socket.
///
/// Real-time media is dropped, not queued, when the connection has no room (its send buffer above a mark): a frame
/// that waits behind a full TCP buffer arrives too late to show.
package protocol MediaStreamSink: AnyObject {
    /// Queues one whole frame (a ChannelData message with its padding).
    /// - Parameter frame: the bytes.
    /// - Returns: false when the connection cannot take it now (dropped; the caller counts it).
    func write(_ frame: ByteBuffer) -> Bool
    /// Sends what was queued.
    func flush()
}
