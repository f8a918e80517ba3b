/// An RTCP source description packet, PT 202 (RFC 3550 section 6.5): up to 31 chunks.
///
/// ```
/// |V=2|P|    SC   |  PT=SDES=202  |             length            |
/// +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
/// |                          SSRC/CSRC_1                          |
/// |                           SDES items                          |
/// |                              ...                              |
/// +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
/// ```
public struct SourceDescription: Hashable, Sendable {
    /// The chunks.
    public var chunks: [SourceDescriptionChunk]

    /// Creates a packet.
    /// - Parameter chunks: the chunks (at most 31).
    public init(chunks: [SourceDescriptionChunk]) { self.chunks = chunks }

    /// Bytes on the wire, header included.
    public var serializedSize: Int { RTCPCommonHeader.size + chunks.reduce(0) { $0 + $1.serializedSize } }

    init(reader r: ByteReader, body: Range<Int>, count: UInt8) throws(RTCPError) {
        var chunks: [SourceDescriptionChunk] = []
        var o = body.lowerBound
        for _ in 0..<Int(count) {
            guard o + 4 <= body.upperBound else { throw .sdesChunkTruncated(offset: o) }
            let ssrc = SSRC(r.u32(o))
            o += 4
            var items: [SourceDescriptionItem] = []
            while true {
                guard o < body.upperBound else { throw .sdesChunkTruncated(offset: o) }
                let type = r.u8(o)
                if type == SourceDescriptionItem.endType {
                    o = (o + 4) & ~3  // the null item plus padding to the next 32-bit boundary
                    break
                }
                guard o + 2 <= body.upperBound else { throw .sdesChunkTruncated(offset: o) }
                let length = Int(r.u8(o + 1))
                guard o + 2 + length <= body.upperBound else { throw .sdesChunkTruncated(offset: o) }
                items.append(SourceDescriptionItem(type: type, value: r.bytes((o + 2)..<(o + 2 + length))))
                o += 2 + length
            }
            chunks.append(SourceDescriptionChunk(ssrc: ssrc, items: items))
        }
        self.init(chunks: chunks)
    }

    func validate() throws(RTCPError) {
        guard chunks.count <= RTCPCommonHeader.maxCount else { throw .tooManyEntries(chunks.count) }
        for chunk in chunks {
            for item in chunk.items where item.value.count > SourceDescriptionItem.maxLength
                || item.type == SourceDescriptionItem.endType
            {
                throw .sdesItemLength(type: item.type, length: item.value.count)
            }
        }
    }

    func write(to w: inout ByteWriter) {
        RTCPCommonHeader.write(
            to: &w, count: UInt8(chunks.count), packetType: RTCPPacketType.sourceDescription, size: serializedSize)
        for chunk in chunks { chunk.write(to: &w) }
    }
}
