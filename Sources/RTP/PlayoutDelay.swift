/// The playout delay header extension (`playout-delay`,
/// http://www.webrtc.org/experiments/rtp-hdrext/playout-delay): the sender's bounds on the delay between a frame's
/// capture and its render at the receiver, in units of 10 ms. `0-0` asks the receiver to render each frame as soon as
/// it is decoded (no smoothing buffer); libwebrtc's receiver keeps its jitter-buffer target within the bounds.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |  ID   | len=2 |       MIN delay       |       MAX delay       |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
public struct PlayoutDelay: Hashable, Sendable {
    /// The extension's URI for `a=extmap`.
    public static let uri = "http://www.webrtc.org/experiments/rtp-hdrext/playout-delay"
    /// Bytes of the element's data.
    public static let size = 3
    /// Milliseconds per unit of the fields.
    public static let granularityMilliseconds = 10
    /// The largest value of a 12-bit field.
    public static let maximumUnits: UInt16 = 0xFFF
    /// The largest delay the extension can say, in milliseconds (4095 x 10).
    public static let maximumMilliseconds = Int(maximumUnits) * granularityMilliseconds

    /// The minimum delay, in units of 10 ms (0...4095).
    public let minimum: UInt16
    /// The maximum delay, in units of 10 ms (`minimum`...4095).
    public let maximum: UInt16

    /// Creates bounds in units of 10 ms; nil when either is above 4095 or `minimum` exceeds `maximum`.
    /// - Parameters:
    ///   - minimum: the minimum delay, 10 ms units.
    ///   - maximum: the maximum delay, 10 ms units.
    public init?(minimum: UInt16, maximum: UInt16) {
        guard minimum <= Self.maximumUnits, maximum <= Self.maximumUnits, minimum <= maximum else { return nil }
        self.minimum = minimum
        self.maximum = maximum
    }

    /// Creates bounds from milliseconds, rounded down to the 10 ms the extension counts in (as libwebrtc writes
    /// them); nil when either is outside 0...40950 or `minimum` exceeds `maximum`.
    /// - Parameters:
    ///   - minimumMilliseconds: the minimum delay, ms.
    ///   - maximumMilliseconds: the maximum delay, ms.
    public init?(minimumMilliseconds: Int, maximumMilliseconds: Int) {
        let range = 0...Self.maximumMilliseconds
        guard range.contains(minimumMilliseconds), range.contains(maximumMilliseconds),
              minimumMilliseconds <= maximumMilliseconds
        else { return nil }
        self.init(minimum: UInt16(minimumMilliseconds / Self.granularityMilliseconds),
                  maximum: UInt16(maximumMilliseconds / Self.granularityMilliseconds))
    }

    /// Decodes an element's data: exactly 3 bytes; nil for any other length or a minimum above the maximum.
    /// - Parameter data: the element's data.
    public init?(data: UnsafeRawBufferPointer) {
        guard data.count == Self.size else { return nil }
        let bits = ByteReader(buffer: data).u24(0)
        self.init(minimum: UInt16(bits >> 12), maximum: UInt16(bits & 0xFFF))
    }

    /// The minimum delay in milliseconds.
    public var minimumMilliseconds: Int { Int(minimum) * Self.granularityMilliseconds }
    /// The maximum delay in milliseconds.
    public var maximumMilliseconds: Int { Int(maximum) * Self.granularityMilliseconds }

    /// The element carrying these bounds, for building a header extension block.
    /// - Parameter id: the negotiated local identifier (1...14 in the one-byte form).
    /// - Returns: the element.
    public func element(id: UInt8) -> RTPHeaderExtensionElement {
        RTPHeaderExtensionElement(id: id, data: [UInt8(minimum >> 4), UInt8((minimum & 0xF) << 4 | maximum >> 8),
                                                 UInt8(maximum & 0xFF)])
    }

    /// Writes the element's data: 12 bits of minimum, then 12 bits of maximum.
    @inline(__always)
    func write(to w: inout ByteWriter) {
        w.u24(UInt32(minimum) << 12 | UInt32(maximum))
    }

    /// Reads the bounds from a whole RTP packet without copying.
    /// - Parameters:
    ///   - packet: the RTP packet (unprotected).
    ///   - id: the negotiated local identifier.
    /// - Returns: the bounds, or nil when the packet has no such element or it does not decode.
    /// - Throws: `RTPError` when the packet or its extension block is malformed.
    public static func read(from packet: UnsafeRawBufferPointer, id: UInt8) throws(RTPError) -> PlayoutDelay? {
        let layout = try RTPPacketLayout(packet)
        guard let range = try layout.extensionElement(id: id, in: packet) else { return nil }
        return PlayoutDelay(data: UnsafeRawBufferPointer(rebasing: packet[range]))
    }
}
