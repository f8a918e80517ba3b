/// One RTP payload the payloader plans for an access unit, described by reference to the frame's NAL units
/// (pion's `Payload` idea, without copying bytes).
public struct H264PayloadDescriptor: Hashable, Sendable {
    /// The packet structure (RFC 6184 section 5.4).
    public enum Kind: Hashable, Sendable {
        /// A single NAL unit packet carrying NAL `index` whole (section 5.6).
        case single(index: Int)
        /// A STAP-A aggregating the consecutive NAL units `indices` (section 5.7.1).
        case stapA(indices: Range<Int>)
        /// A FU-A fragment of NAL `index`, carrying `range` (offsets inside the NAL unit, never including its header
        /// byte at offset 0); `isStart`/`isEnd` are the S/E bits (section 5.8).
        case fuA(index: Int, range: Range<Int>, isStart: Bool, isEnd: Bool)
    }

    /// The packet structure.
    public var kind: Kind
    /// The RTP payload size in bytes.
    public var size: Int
    /// Whether this is the last payload of the access unit (RTP marker bit, RFC 6184 section 5.1).
    public var isLastOfAccessUnit: Bool

    /// Creates a descriptor.
    /// - Parameters:
    ///   - kind: the packet structure.
    ///   - size: the payload size.
    ///   - isLastOfAccessUnit: the marker.
    public init(kind: Kind, size: Int, isLastOfAccessUnit: Bool) {
        self.kind = kind
        self.size = size
        self.isLastOfAccessUnit = isLastOfAccessUnit
    }
}
