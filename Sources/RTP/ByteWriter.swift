/// Big-endian writes into a caller's raw buffer.
///
/// Serializers compute their size first and throw a specific "buffer too small" error, so a write out of bounds is a
/// bug in this package. The writer checks bounds with `precondition`, which holds in release builds: such a bug traps
/// instead of writing past the caller's buffer. Each check is one comparison per call (per byte run for `bytes`).
struct ByteWriter {
    /// The destination.
    let buffer: UnsafeMutableRawBufferPointer
    /// The next offset to write at.
    var offset: Int

    init(_ buffer: UnsafeMutableRawBufferPointer, offset: Int = 0) {
        precondition(offset >= 0 && offset <= buffer.count, "ByteWriter: start offset \(offset) past \(buffer.count)")
        self.buffer = buffer
        self.offset = offset
    }

    /// Bytes left after `offset`.
    @inline(__always) var remaining: Int { buffer.count - offset }

    @inline(__always) mutating func u8(_ value: UInt8) {
        precondition(offset < buffer.count, "ByteWriter: write of 1 byte at \(offset) past \(buffer.count)")
        buffer[offset] = value
        offset += 1
    }

    @inline(__always) mutating func u16(_ value: UInt16) {
        u8(UInt8(truncatingIfNeeded: value >> 8))
        u8(UInt8(truncatingIfNeeded: value))
    }

    @inline(__always) mutating func u24(_ value: UInt32) {
        u8(UInt8(truncatingIfNeeded: value >> 16))
        u8(UInt8(truncatingIfNeeded: value >> 8))
        u8(UInt8(truncatingIfNeeded: value))
    }

    @inline(__always) mutating func u32(_ value: UInt32) {
        u16(UInt16(truncatingIfNeeded: value >> 16))
        u16(UInt16(truncatingIfNeeded: value))
    }

    @inline(__always) mutating func zeros(_ count: Int) {
        precondition(count >= 0 && count <= remaining, "ByteWriter: \(count) zeros at \(offset) past \(buffer.count)")
        for i in 0..<count { buffer[offset + i] = 0 }
        offset += count
    }

    /// Copies bytes from a contiguous collection.
    @inline(__always) mutating func bytes<C: Collection>(_ source: C) where C.Element == UInt8 {
        let count = source.count
        precondition(count <= remaining, "ByteWriter: write of \(count) bytes at \(offset) past \(buffer.count)")
        let done = source.withContiguousStorageIfAvailable { src -> Bool in
            if let base = src.baseAddress, src.count > 0 {
                (buffer.baseAddress! + offset).copyMemory(from: base, byteCount: src.count)
            }
            return true
        }
        if done == nil {
            var i = offset
            for b in source { buffer[i] = b; i += 1 }
        }
        offset += count
    }

    /// Copies raw bytes.
    @inline(__always) mutating func raw(_ source: UnsafeRawBufferPointer) {
        precondition(source.count <= remaining, "ByteWriter: write of \(source.count) bytes at \(offset) past \(buffer.count)")
        if let base = source.baseAddress, source.count > 0 {
            (buffer.baseAddress! + offset).copyMemory(from: base, byteCount: source.count)
        }
        offset += source.count
    }
}
