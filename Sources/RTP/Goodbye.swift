/// An RTCP BYE packet, PT 203 (RFC 3550 section 6.6): the sources leaving, and an optional reason.
///
/// ```
/// |V=2|P|    SC   |   PT=BYE=203  |             length            |
/// |                           SSRC/CSRC                           |
/// :                              ...                              :
/// |     length    |               reason for leaving            ... (opt)
/// ```
public struct Goodbye: Hashable, Sendable {
    /// The sources leaving (at most 31).
    public var sources: [SSRC]
    /// The reason text bytes (at most 255), or `nil`.
    public var reason: [UInt8]?

    /// Creates a BYE.
    /// - Parameters:
    ///   - sources: the sources leaving.
    ///   - reason: an optional reason (UTF-8, at most 255 bytes).
    public init(sources: [SSRC], reason: String? = nil) {
        self.sources = sources
        self.reason = reason.map { Array($0.utf8) }
    }

    /// The reason decoded as UTF-8.
    public var reasonText: String? { reason.map { String(decoding: $0, as: UTF8.self) } }

    /// Bytes on the wire, header included.
    public var serializedSize: Int {
        let reasonSize = reason.map { ($0.count + 1 + 3) & ~3 } ?? 0
        return RTCPCommonHeader.size + 4 * sources.count + reasonSize
    }

    init(reader r: ByteReader, body: Range<Int>, count: UInt8) throws(RTCPError) {
        let needed = 4 * Int(count)
        guard body.count >= needed else {
            throw .packetTooShort(packetType: RTCPPacketType.goodbye, needed: needed, available: body.count)
        }
        let o = body.lowerBound
        self.sources = (0..<Int(count)).map { SSRC(r.u32(o + 4 * $0)) }
        let reasonStart = o + needed
        if reasonStart < body.upperBound {
            let length = Int(r.u8(reasonStart))
            guard reasonStart + 1 + length <= body.upperBound else { throw .byeReasonOverrun(offset: reasonStart) }
            self.reason = r.bytes((reasonStart + 1)..<(reasonStart + 1 + length))
        } else {
            self.reason = nil
        }
    }

    func validate() throws(RTCPError) {
        guard sources.count <= RTCPCommonHeader.maxCount else { throw .tooManyEntries(sources.count) }
        if let reason, reason.count > 255 { throw .valueOutOfRange(reason.count) }
    }

    func write(to w: inout ByteWriter) {
        let start = w.offset
        RTCPCommonHeader.write(
            to: &w, count: UInt8(sources.count), packetType: RTCPPacketType.goodbye, size: serializedSize)
        for source in sources { w.u32(source.rawValue) }
        if let reason {
            w.u8(UInt8(reason.count))
            w.bytes(reason)
            w.zeros(serializedSize - (w.offset - start))
        }
    }
}
