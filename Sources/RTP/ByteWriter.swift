/// Big-endian writes into a caller's raw buffer. Serializers compute their size first and throw a specific
/// "buffer too small" error, so the writer itself only asserts.
struct ByteWriter {
    /// The destination.
    let buffer: UnsafeMutableRawBufferPointer
    /// The next offset to write at.
    var offset: Int

    init(_ buffer: UnsafeMutableRawBufferPointer, offset: Int = 0) {
        self.buffer = buffer
        self.offset = offset
    }

    @inline(__always) mutating func u8(_ value: UInt8) {
        assert(offset < buffer.count)
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
        assert(offset + count <= buffer.count)
        for i in 0..<count { buffer[offset + i] = 0 }
        offset += count
    }

    /// Copies bytes from a contiguous collection.
    @inline(__always) mutating func bytes<C: Collection>(_ source: C) where C.Element == UInt8 {
        assert(offset + source.count <= buffer.count)
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
        offset += source.count
    }

    /// Copies raw bytes.
    @inline(__always) mutating func raw(_ source: UnsafeRawBufferPointer) {
        assert(offset + source.count <= buffer.count)
        if let base = source.baseAddress, source.count > 0 {
            (buffer.baseAddress! + offset).copyMemory(from: base, byteCount: source.count)
        }
        offset += source.count
    }
}
