/// Big-endian reads from raw memory at explicit offsets.
///
/// Every parser validates lengths first and reports a specific error, so a read out of bounds is a bug in this
/// package, never a property of the input. The accessors therefore check bounds with `precondition`, which holds in
/// release builds: a future parser bug is a trap, not a silent over-read of the memory after the packet
/// (`UnsafeRawBufferPointer`'s own subscript checks only in debug builds). Each check is one unsigned comparison.
struct ByteReader {
    /// The bytes being read.
    let buffer: UnsafeRawBufferPointer

    @inline(__always) var count: Int { buffer.count }

    /// Whether `size` bytes starting at `offset` lie inside the buffer (negative offsets included in the check).
    @inline(__always) func contains(_ offset: Int, size: Int) -> Bool {
        offset >= 0 && size >= 0 && offset <= buffer.count - size
    }

    @inline(__always) func u8(_ offset: Int) -> UInt8 {
        precondition(contains(offset, size: 1), "ByteReader: read of 1 byte at \(offset) past \(buffer.count)")
        return buffer[offset]
    }

    @inline(__always) func u16(_ offset: Int) -> UInt16 {
        precondition(contains(offset, size: 2), "ByteReader: read of 2 bytes at \(offset) past \(buffer.count)")
        return UInt16(buffer[offset]) << 8 | UInt16(buffer[offset + 1])
    }

    @inline(__always) func u24(_ offset: Int) -> UInt32 {
        precondition(contains(offset, size: 3), "ByteReader: read of 3 bytes at \(offset) past \(buffer.count)")
        return UInt32(buffer[offset]) << 16 | UInt32(buffer[offset + 1]) << 8 | UInt32(buffer[offset + 2])
    }

    @inline(__always) func u32(_ offset: Int) -> UInt32 {
        precondition(contains(offset, size: 4), "ByteReader: read of 4 bytes at \(offset) past \(buffer.count)")
        return UInt32(buffer[offset]) << 24 | UInt32(buffer[offset + 1]) << 16
            | UInt32(buffer[offset + 2]) << 8 | UInt32(buffer[offset + 3])
    }

    @inline(__always) func bytes(_ range: Range<Int>) -> [UInt8] {
        precondition(contains(range.lowerBound, size: range.count), "ByteReader: range \(range) past \(buffer.count)")
        return Array(buffer[range])
    }
}
