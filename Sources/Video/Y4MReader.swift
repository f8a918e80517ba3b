/// Reads a YUV4MPEG2 stream (a file or a pipe such as standard input) frame by frame into a reused `I420Frame`.
///
/// The reader owns its file descriptor when it opened it (closed in `deinit`) and a small read-ahead buffer for the
/// header lines. A regular file is mapped (`mmap`) after its header is read, and `withNextFrame(_:)` lends each frame
/// in place, without a copy; from a pipe, picture data is read straight into the caller's frame (or, for
/// `withNextFrame(_:)`, into one frame the reader keeps).
public final class Y4MReader {
    /// The stream header.
    public let header: Y4MHeader
    /// The number of frames read so far (the index of the next frame).
    public private(set) var framesRead = 0

    private let fd: Int32
    private let ownsDescriptor: Bool
    private let buffer: UnsafeMutableRawPointer
    private var bufferStart = 0
    private var bufferEnd = 0
    private static let bufferCapacity = 64 * 1024
    /// The mapped file, for a regular file; nil for a pipe.
    private var mapping: MappedFile?
    /// The offset of the next frame header in `mapping`.
    private var mappedPosition = 0
    /// The frame `withNextFrame(_:)` reads into when the stream is a pipe.
    private var pipeFrame: I420Frame?
    private static let frameMagic: [UInt8] = Array("FRAME".utf8)
    private static let newline = UInt8(ascii: "\n")

    /// Opens a Y4M file.
    /// - Parameter path: the file path, or "-" for standard input.
    /// - Throws: `Y4MError` if the file cannot be opened or its header is bad.
    public convenience init(path: String) throws {
        if path == "-" {
            try self.init(fileDescriptor: 0, closeOnDeinit: false)
        } else {
            let fd = try FileDescriptorIO.open(path, forWriting: false)
            try self.init(fileDescriptor: fd, closeOnDeinit: true)
        }
    }

    /// Reads a Y4M stream from an open descriptor.
    /// - Parameters:
    ///   - fileDescriptor: the descriptor to read from.
    ///   - closeOnDeinit: whether the reader closes it when released.
    /// - Throws: `Y4MError.badHeader`, `.unsupportedColorSpace` or `.system`.
    public init(fileDescriptor: Int32, closeOnDeinit: Bool) throws {
        fd = fileDescriptor
        ownsDescriptor = closeOnDeinit
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: Y4MReader.bufferCapacity, alignment: 16)
        self.buffer = buffer
        // `header` must be set before a throwing call can leave init (so that deinit releases the buffer and the
        // descriptor), so parse first and throw after.
        var start = 0, end = 0
        let parsed = Result { () throws -> Y4MHeader in
            guard let line = try Y4MReader.readLine(fd: fileDescriptor, buffer: buffer, start: &start, end: &end,
                                                    limit: Y4MHeader.maxLength)
            else { throw Y4MError.badHeader("empty stream or header line without newline") }
            return try Y4MHeader(parsing: String(decoding: line, as: UTF8.self))
        }
        switch parsed {
        case .success(let h): header = h
        case .failure(let error):
            header = Y4MHeader(width: 1, height: 1)
            bufferStart = 0
            bufferEnd = 0
            throw error
        }
        bufferStart = start
        bufferEnd = end
        // A regular file (also one redirected to standard input) is read in place from now on, starting where the
        // header ended: the descriptor's offset less what is still buffered.
        if let size = try FileDescriptorIO.regularFileSize(fileDescriptor), size > 0 {
            mappedPosition = try FileDescriptorIO.currentOffset(fileDescriptor) - (end - start)
            mapping = try MappedFile(fd: fileDescriptor, size: size)
        }
    }

    deinit {
        buffer.deallocate()
        if ownsDescriptor { FileDescriptorIO.close(fd) }
    }

    /// Reads the next frame into `frame`, replacing it with a new tightly packed buffer only if its size or strides
    /// differ from the stream's.
    /// - Parameter frame: the destination, reused.
    /// - Returns: false at the end of the stream (no partial frame pending).
    /// - Throws: `Y4MError.badFrameHeader` or `.truncatedFrame` naming the frame index, or `.system`.
    public func readFrame(into frame: inout I420Frame) throws -> Bool {
        if frame.width != header.width || frame.height != header.height || !frame.isTightlyPacked {
            frame = I420Frame(width: header.width, height: header.height)
        }
        if mapping != nil {
            guard let bytes = try nextMappedFrame() else { return false }
            frame.data.withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(start: bytes, count: $0.count)) }
            return true
        }
        return try readPipedFrame(into: &frame)
    }

    /// Lends the next frame to `body` without copying it when the stream is a mapped file (from a pipe, the frame is
    /// read into a buffer the reader keeps and lent from there).
    /// - Parameter body: receives the frame, valid only during the call.
    /// - Returns: what `body` returns, or nil at the end of the stream (no partial frame pending).
    /// - Throws: `Y4MError.badFrameHeader` or `.truncatedFrame` naming the frame index, `.system`, or what `body`
    ///   throws.
    public func withNextFrame<R>(_ body: (I420FrameView) throws -> R) throws -> R? {
        if mapping != nil {
            guard let bytes = try nextMappedFrame() else { return nil }
            return try body(I420FrameView(packedWidth: header.width, height: header.height,
                                          base: bytes.assumingMemoryBound(to: UInt8.self)))
        }
        var frame = pipeFrame ?? I420Frame(width: header.width, height: header.height)
        pipeFrame = nil
        defer { pipeFrame = frame }
        guard try readPipedFrame(into: &frame) else { return nil }
        return try frame.withView(body)
    }

    /// Reads a frame from a pipe into a tightly packed frame of the stream's size.
    private func readPipedFrame(into frame: inout I420Frame) throws -> Bool {
        let index = framesRead
        let expected = header.frameByteCount
        guard try skipFrameHeader(index: index, expected: expected) else { return false }
        let received: Int = try frame.data.withUnsafeMutableBytes { (raw) throws -> Int in
            let destination = raw.baseAddress!
            let buffered = min(bufferEnd - bufferStart, expected)
            destination.copyMemory(from: buffer + bufferStart, byteCount: buffered)
            bufferStart += buffered
            guard buffered < expected else { return buffered }
            return try buffered + FileDescriptorIO.readFully(fd, destination + buffered, expected - buffered)
        }
        guard received == expected else {
            throw Y4MError.truncatedFrame(frameIndex: index, expectedBytes: expected, receivedBytes: received)
        }
        framesRead += 1
        return true
    }

    /// Parses the next frame header in the mapped file and returns where its picture starts, or nil at a clean end.
    /// The file's size is checked first (one `fstat`), so a file that grew is mapped anew and one that shrank is
    /// never read past its end.
    private func nextMappedFrame() throws(Y4MError) -> UnsafeRawPointer? {
        guard let mapping else { return nil }
        let index = framesRead
        let expected = header.frameByteCount
        try mapping.refresh()
        let available = mapping.available
        var position = mappedPosition
        if position >= available { return nil }
        var parser = FrameHeaderParser()
        while true {
            guard position < available else {
                throw .truncatedFrame(frameIndex: index, expectedBytes: expected, receivedBytes: 0)
            }
            let byte = mapping.base.load(fromByteOffset: position, as: UInt8.self)
            position += 1
            if try parser.consume(byte, frameIndex: index) { break }
        }
        guard available - position >= expected else {
            mappedPosition = available
            throw .truncatedFrame(frameIndex: index, expectedBytes: expected, receivedBytes: available - position)
        }
        mappedPosition = position + expected
        framesRead += 1
        return mapping.base + position
    }

    /// Reads the next frame into a new buffer (allocating form of `readFrame(into:)`).
    /// - Returns: the frame, or nil at the end of the stream.
    /// - Throws: as `readFrame(into:)`.
    public func readFrame() throws -> I420Frame? {
        var frame = I420Frame(width: header.width, height: header.height)
        return try readFrame(into: &frame) ? frame : nil
    }

    /// Consumes `FRAME` [params] newline from the read-ahead buffer without allocating.
    /// - Returns: false if the stream ended cleanly before the frame.
    private func skipFrameHeader(index: Int, expected: Int) throws -> Bool {
        var parser = FrameHeaderParser()
        var sawAny = false
        while true {
            if bufferStart == bufferEnd {
                bufferStart = 0
                bufferEnd = try FileDescriptorIO.read(fd, buffer, Y4MReader.bufferCapacity)
                if bufferEnd == 0 {
                    if !sawAny { return false }
                    throw Y4MError.truncatedFrame(frameIndex: index, expectedBytes: expected, receivedBytes: 0)
                }
            }
            let byte = buffer.load(fromByteOffset: bufferStart, as: UInt8.self)
            bufferStart += 1
            sawAny = true
            if try parser.consume(byte, frameIndex: index) { return true }
        }
    }

    /// Recognises `FRAME`, optional space-separated parameters and the newline, one byte at a time.
    private struct FrameHeaderParser {
        private var matched = 0
        private var parameterBytes = 0

        /// Takes one byte of the header.
        /// - Returns: true once the newline ending the header has been consumed.
        /// - Throws: `Y4MError.badFrameHeader` for anything but `FRAME`[ params] newline.
        mutating func consume(_ byte: UInt8, frameIndex: Int) throws(Y4MError) -> Bool {
            let magic = Y4MReader.frameMagic
            if matched < magic.count {
                guard byte == magic[matched] else { throw .badFrameHeader(frameIndex: frameIndex) }
                matched += 1
            } else if byte == Y4MReader.newline {
                return true
            } else if matched == magic.count && byte != UInt8(ascii: " ") {
                throw .badFrameHeader(frameIndex: frameIndex)
            } else {
                matched = magic.count + 1
                parameterBytes += 1
                if parameterBytes > Y4MHeader.maxLength { throw .badFrameHeader(frameIndex: frameIndex) }
            }
            return false
        }
    }

    /// Reads one line (without the newline) through the read-ahead buffer.
    /// - Returns: nil if the stream ends before any byte.
    /// - Throws: `Y4MError.badHeader` if the line is too long or cut by the end of the stream.
    private static func readLine(fd: Int32, buffer: UnsafeMutableRawPointer, start: inout Int, end: inout Int,
                                 limit: Int) throws -> [UInt8]? {
        var line: [UInt8] = []
        while true {
            if start == end {
                start = 0
                end = try FileDescriptorIO.read(fd, buffer, bufferCapacity)
                if end == 0 {
                    if line.isEmpty { return nil }
                    throw Y4MError.badHeader("line without newline at end of stream")
                }
            }
            let bytes = buffer.assumingMemoryBound(to: UInt8.self)
            while start < end {
                let byte = bytes[start]
                start += 1
                if byte == newline { return line }
                line.append(byte)
                if line.count > limit { throw Y4MError.badHeader("line longer than \(limit) bytes") }
            }
        }
    }
}
