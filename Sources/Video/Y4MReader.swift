/// Reads a YUV4MPEG2 stream (a file or a pipe such as standard input) frame by frame into a reused `I420Frame`.
///
/// The reader owns its file descriptor when it opened it (closed in `deinit`) and a small read-ahead buffer for the
/// header lines; picture data is read straight into the caller's frame.
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
        let index = framesRead
        let expected = header.frameByteCount
        guard try skipFrameHeader(index: index, expected: expected) else { return false }
        if frame.width != header.width || frame.height != header.height || !frame.isTightlyPacked {
            frame = I420Frame(width: header.width, height: header.height)
        }
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

    /// Reads the next frame into a new buffer (allocating form of `readFrame(into:)`).
    /// - Returns: the frame, or nil at the end of the stream.
    /// - Throws: as `readFrame(into:)`.
    public func readFrame() throws -> I420Frame? {
        var frame = I420Frame(width: header.width, height: header.height)
        return try readFrame(into: &frame) ? frame : nil
    }

    /// Consumes `FRAME` [params] newline without allocating.
    /// - Returns: false if the stream ended cleanly before the frame.
    private func skipFrameHeader(index: Int, expected: Int) throws -> Bool {
        let magic = Y4MReader.frameMagic
        var matched = 0
        var sawAny = false
        var parameterBytes = 0
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
            if matched < magic.count {
                guard byte == magic[matched] else { throw Y4MError.badFrameHeader(frameIndex: index) }
                matched += 1
            } else if byte == Y4MReader.newline {
                return true
            } else if matched == magic.count && byte != UInt8(ascii: " ") {
                throw Y4MError.badFrameHeader(frameIndex: index)
            } else {
                matched = magic.count + 1
                parameterBytes += 1
                if parameterBytes > Y4MHeader.maxLength { throw Y4MError.badFrameHeader(frameIndex: index) }
            }
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
