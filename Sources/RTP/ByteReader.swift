/// Big-endian reads from raw memory at explicit offsets. Callers check bounds before reading (every parser validates
/// lengths first and reports a specific error), so the accessors only assert.
struct ByteReader {
    /// The bytes being read.
    let buffer: UnsafeRawBufferPointer

    @inline(__always) var count: Int { buffer.count }

    @inline(__always) func u8(_ offset: Int) -> UInt8 {
        assert(offset < buffer.count)
        return buffer[offset]
    }

    @inline(__always) func u16(_ offset: Int) -> UInt16 {
        assert(offset + 2 <= buffer.count)
        return UInt16(buffer[offset]) << 8 | UInt16(buffer[offset + 1])
    }

    @inline(__always) func u24(_ offset: Int) -> UInt32 {
        assert(offset + 3 <= buffer.count)
        return UInt32(buffer[offset]) << 16 | UInt32(buffer[offset + 1]) << 8 | UInt32(buffer[offset + 2])
    }

    @inline(__always) func u32(_ offset: Int) -> UInt32 {
        assert(offset + 4 <= buffer.count)
        return UInt32(buffer[offset]) << 24 | UInt32(buffer[offset + 1]) << 16
            | UInt32(buffer[offset + 2]) << 8 | UInt32(buffer[offset + 3])
    }

    @inline(__always) func bytes(_ range: Range<Int>) -> [UInt8] {
        Array(buffer[range])
    }
}
