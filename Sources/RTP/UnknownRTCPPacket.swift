/// An RTCP packet this package does not decode (APP, XR, transport-wide CC, other feedback formats), kept raw so
/// that it can be skipped, logged or forwarded.
public struct UnknownRTCPPacket: Hashable, Sendable {
    /// The PT field.
    public var packetType: UInt8
    /// The five-bit count/FMT field.
    public var countOrFormat: UInt8
    /// The body after the common header (padding removed).
    public var body: [UInt8]

    /// Creates a raw packet.
    /// - Parameters:
    ///   - packetType: the PT field.
    ///   - countOrFormat: the count/FMT field (0...31).
    ///   - body: the body (a multiple of 4 bytes to be serializable).
    public init(packetType: UInt8, countOrFormat: UInt8, body: [UInt8]) {
        self.packetType = packetType
        self.countOrFormat = countOrFormat
        self.body = body
    }

    /// Bytes on the wire, header included.
    public var serializedSize: Int { RTCPCommonHeader.size + body.count }

    func validate() throws(RTCPError) {
        guard body.count % 4 == 0 else { throw .valueOutOfRange(body.count) }
        guard countOrFormat <= 31 else { throw .valueOutOfRange(Int(countOrFormat)) }
    }

    func write(to w: inout ByteWriter) {
        RTCPCommonHeader.write(to: &w, count: countOrFormat, packetType: packetType, size: serializedSize)
        w.bytes(body)
    }
}
