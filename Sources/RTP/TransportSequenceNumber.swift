/// The transport-wide sequence number header extension (draft-holmer-rmcat-transport-wide-cc-extensions-01
/// section 2): one counter over every packet sent on the transport (media and retransmissions), which the receiver
/// echoes with arrival times in transport-wide feedback (`TransportFeedback`).
///
/// ```
///  0                   1                   2
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |  ID   | L=1   |transport-wide sequence number |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
///
/// The number is assigned when a packet goes on the wire (after pacing), so the packetizer reserves the element with
/// any value and the sender rewrites it in place with `write(_:into:id:)`.
public enum TransportSequenceNumber {
    /// The extension's URI for `a=extmap` (draft section 2).
    public static let uri = "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"
    /// Bytes of the element's data.
    public static let size = 2

    /// The element carrying `value`, for building a header extension block.
    /// - Parameters:
    ///   - id: the negotiated local identifier (1...14 in the one-byte form).
    ///   - value: the transport-wide sequence number.
    /// - Returns: the element.
    public static func element(id: UInt8, value: SequenceNumber) -> RTPHeaderExtensionElement {
        RTPHeaderExtensionElement(id: id, data: [UInt8(value.rawValue >> 8), UInt8(value.rawValue & 0xFF)])
    }

    /// The number an element carries, or nil when its data is not 2 bytes.
    /// - Parameter element: a decoded element with the negotiated identifier.
    public static func value(of element: RTPHeaderExtensionElement) -> SequenceNumber? {
        guard element.data.count == size else { return nil }
        return SequenceNumber(UInt16(element.data[0]) << 8 | UInt16(element.data[1]))
    }

    /// Reads the number from a whole RTP packet without copying.
    /// - Parameters:
    ///   - packet: the RTP packet (unprotected).
    ///   - id: the negotiated local identifier.
    /// - Returns: the number, or nil when the packet has no such element or it is not 2 bytes.
    /// - Throws: `RTPError` when the packet or its extension block is malformed.
    public static func read(from packet: UnsafeRawBufferPointer, id: UInt8) throws(RTPError) -> SequenceNumber? {
        let layout = try RTPPacketLayout(packet)
        guard let range = try layout.extensionElement(id: id, in: packet), range.count == size else { return nil }
        return SequenceNumber(ByteReader(buffer: packet).u16(range.lowerBound))
    }

    /// Overwrites the number in a whole RTP packet, in place (before SRTP protection).
    /// - Parameters:
    ///   - value: the number to write.
    ///   - packet: the RTP packet.
    ///   - id: the negotiated local identifier.
    /// - Returns: false when the packet has no 2-byte element with that identifier (nothing is written).
    /// - Throws: `RTPError` when the packet or its extension block is malformed.
    @discardableResult
    public static func write(_ value: SequenceNumber, into packet: UnsafeMutableRawBufferPointer, id: UInt8)
        throws(RTPError) -> Bool
    {
        let readOnly = UnsafeRawBufferPointer(packet)
        let layout = try RTPPacketLayout(readOnly)
        guard let range = try layout.extensionElement(id: id, in: readOnly), range.count == size else { return false }
        var w = ByteWriter(packet, offset: range.lowerBound)
        w.u16(value.rawValue)
        return true
    }
}
