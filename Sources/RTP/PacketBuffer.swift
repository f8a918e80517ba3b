/// A reusable packet buffer with room for the SRTP trailer: the packetizer writes each RTP packet at the start of
/// `storage`, sets `count`, and hands the buffer to the caller, who may protect it in place (SRTP grows it by at
/// most `reservedTrailer` bytes) and send it. Reusing one buffer keeps the send path free of per-packet allocation.
public struct PacketBuffer: Sendable {
    /// The backing bytes; its size is fixed at creation (`capacity`).
    public private(set) var storage: [UInt8]
    /// The number of valid bytes at the start of `storage` (the current packet, or the protected packet once the
    /// caller has grown it).
    public var count: Int {
        didSet { precondition(count >= 0 && count <= storage.count, "PacketBuffer count out of range") }
    }
    /// Bytes kept free after every packet the packetizer writes (the SRTP tag).
    public let reservedTrailer: Int

    /// Creates a buffer.
    /// - Parameters:
    ///   - capacity: total bytes, including the reserved trailer.
    ///   - reservedTrailer: bytes kept free after each packet.
    public init(capacity: Int, reservedTrailer: Int) {
        self.storage = [UInt8](repeating: 0, count: capacity)
        self.count = 0
        self.reservedTrailer = reservedTrailer
    }

    /// The total size of the buffer.
    public var capacity: Int { storage.count }

    /// The current packet, as a slice of `storage` (no copy).
    public var bytes: ArraySlice<UInt8> { storage[0..<count] }

    /// Reads the current packet.
    /// - Parameter body: receives the `count` valid bytes.
    /// - Returns: what `body` returns.
    /// - Throws: what `body` throws.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try storage.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
    }

    /// Gives mutable access to the whole buffer and the packet length, e.g. to protect the packet in place with
    /// SRTP, which appends its tag and updates the length.
    /// - Parameter body: receives the whole buffer (`capacity` bytes) and the packet length to read and update.
    /// - Returns: what `body` returns.
    /// - Throws: what `body` throws.
    public mutating func withUnsafeMutableBytes<R>(
        _ body: (UnsafeMutableRawBufferPointer, inout Int) throws -> R
    ) rethrows -> R {
        var length = count
        defer { count = length }
        return try storage.withUnsafeMutableBytes { try body($0, &length) }
    }
}
