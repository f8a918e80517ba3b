/// Writes I420 frames as a YUV4MPEG2 stream (`C420jpeg`) to a file or standard output.
public final class Y4MWriter {
    /// The stream header written first.
    public let header: Y4MHeader
    /// The number of frames written so far.
    public private(set) var framesWritten = 0

    private let fd: Int32
    private let ownsDescriptor: Bool
    private static let frameLine: [UInt8] = Array("FRAME\n".utf8)

    /// Creates (or truncates) a Y4M file, or writes to standard output for "-".
    /// - Parameters:
    ///   - path: file path or "-".
    ///   - header: the stream header (size and frame rate).
    /// - Throws: `Y4MError.system`.
    public convenience init(path: String, header: Y4MHeader) throws {
        if path == "-" {
            try self.init(fileDescriptor: 1, closeOnDeinit: false, header: header)
        } else {
            let fd = try FileDescriptorIO.open(path, forWriting: true)
            try self.init(fileDescriptor: fd, closeOnDeinit: true, header: header)
        }
    }

    /// Writes a Y4M stream to an open descriptor; the header is written immediately.
    /// - Parameters:
    ///   - fileDescriptor: the descriptor.
    ///   - closeOnDeinit: whether the writer closes it when released.
    ///   - header: the stream header.
    /// - Throws: `Y4MError.system`.
    public init(fileDescriptor: Int32, closeOnDeinit: Bool, header: Y4MHeader) throws {
        fd = fileDescriptor
        ownsDescriptor = closeOnDeinit
        self.header = header
        let line = Array(header.line.utf8)
        do {
            try line.withUnsafeBytes { (raw) throws in
                try FileDescriptorIO.writeAll(fileDescriptor, raw.baseAddress!, raw.count)
            }
        } catch {
            if closeOnDeinit { FileDescriptorIO.close(fileDescriptor) }
            throw error
        }
    }

    deinit {
        if ownsDescriptor { FileDescriptorIO.close(fd) }
    }

    /// Appends one frame (rows are written without their stride padding).
    /// - Parameter frame: a frame of the header's size.
    /// - Throws: `Y4MError.frameSizeMismatch` or `.system`.
    public func write(_ frame: I420Frame) throws {
        guard frame.width == header.width, frame.height == header.height else {
            throw Y4MError.frameSizeMismatch(frameIndex: framesWritten, expectedWidth: header.width,
                                     expectedHeight: header.height, width: frame.width, height: frame.height)
        }
        let fd = self.fd
        try Y4MWriter.frameLine.withUnsafeBytes { (raw) throws in
            try FileDescriptorIO.writeAll(fd, raw.baseAddress!, raw.count)
        }
        try frame.data.withUnsafeBytes { (raw) throws in
            let base = raw.baseAddress!
            if frame.isTightlyPacked {
                try FileDescriptorIO.writeAll(fd, base, I420Frame.byteCount(height: frame.height, strideY: frame.width,
                                                                            strideUV: frame.chromaWidth))
                return
            }
            for row in 0..<frame.height {
                try FileDescriptorIO.writeAll(fd, base + row * frame.strideY, frame.width)
            }
            for plane in [frame.offsetU, frame.offsetV] {
                for row in 0..<frame.chromaHeight {
                    try FileDescriptorIO.writeAll(fd, base + plane + row * frame.strideUV, frame.chromaWidth)
                }
            }
        }
        framesWritten += 1
    }
}
