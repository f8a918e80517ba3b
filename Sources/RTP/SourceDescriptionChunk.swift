/// One SDES chunk: a source and its items, ended by a null item and zero-padded to a 32-bit boundary
/// (RFC 3550 section 6.5).
public struct SourceDescriptionChunk: Hashable, Sendable {
    /// The described source.
    public var ssrc: SSRC
    /// Its items.
    public var items: [SourceDescriptionItem]

    /// Creates a chunk.
    /// - Parameters:
    ///   - ssrc: the source.
    ///   - items: its items.
    public init(ssrc: SSRC, items: [SourceDescriptionItem]) {
        self.ssrc = ssrc
        self.items = items
    }

    /// Bytes on the wire: SSRC, items, at least one null byte, padding to 4.
    var serializedSize: Int {
        let raw = 4 + items.reduce(0) { $0 + 2 + $1.value.count } + 1
        return (raw + 3) & ~3
    }

    func write(to w: inout ByteWriter) {
        let start = w.offset
        w.u32(ssrc.rawValue)
        for item in items {
            w.u8(item.type)
            w.u8(UInt8(item.value.count))
            w.bytes(item.value)
        }
        w.zeros(serializedSize - (w.offset - start))
    }
}
