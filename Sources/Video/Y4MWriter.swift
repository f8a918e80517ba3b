/// Writes I420 frames as a YUV4MPEG2 stream (`C420jpeg`) to a file, a FIFO, a device or standard output.
///
/// The output is an ``OutputFile``: the path is opened with `open(2)`, never replaced, so a symlink, a FIFO or
/// `/dev/null` stays what it is and an existing file keeps its mode.
public final class Y4MWriter {
    /// The stream header written first.
    public let header: Y4MHeader
    /// The number of frames written so far.
    public private(set) var framesWritten = 0

    private let output: OutputFile
    private static let frameLine: [UInt8] = Array("FRAME\n".utf8)

    /// Opens (creating or truncating) a Y4M output, or writes to standard output for "-"; the header is written
    /// immediately.
    /// - Parameters:
    ///   - path: file path or "-".
    ///   - header: the stream header (size and frame rate).
    /// - Throws: ``OutputFileError``.
    public convenience init(path: String, header: Y4MHeader) throws {
        try self.init(output: OutputFile(path: path), header: header)
    }

    /// Writes a Y4M stream to an open descriptor; the header is written immediately.
    /// - Parameters:
    ///   - fileDescriptor: the descriptor.
    ///   - closeOnDeinit: whether the writer closes it when released.
    ///   - header: the stream header.
    /// - Throws: ``OutputFileError``.
    public convenience init(fileDescriptor: Int32, closeOnDeinit: Bool, header: Y4MHeader) throws {
        try self.init(
            output: OutputFile(fileDescriptor: fileDescriptor, closeOnDeinit: closeOnDeinit, path: "fd \(fileDescriptor)"),
            header: header)
    }

    /// Writes a Y4M stream to an output; the header is written immediately.
    /// - Parameters:
    ///   - output: the output, owned by the writer from now on.
    ///   - header: the stream header.
    /// - Throws: ``OutputFileError``.
    public init(output: OutputFile, header: Y4MHeader) throws {
        self.output = output
        self.header = header
        try output.write(header.line)
    }

    /// Appends one frame (rows are written without their stride padding).
    /// - Parameter frame: a frame of the header's size.
    /// - Throws: `Y4MError.frameSizeMismatch` or ``OutputFileError``.
    public func write(_ frame: I420Frame) throws {
        guard frame.width == header.width, frame.height == header.height else {
            throw Y4MError.frameSizeMismatch(frameIndex: framesWritten, expectedWidth: header.width,
                                     expectedHeight: header.height, width: frame.width, height: frame.height)
        }
        let output = self.output
        try output.write(Y4MWriter.frameLine)
        try frame.data.withUnsafeBytes { (raw) throws in
            if frame.isTightlyPacked {
                let count = I420Frame.byteCount(height: frame.height, strideY: frame.width, strideUV: frame.chromaWidth)
                try output.write(UnsafeRawBufferPointer(rebasing: raw[..<count]))
                return
            }
            for row in 0..<frame.height {
                let start = row * frame.strideY
                try output.write(UnsafeRawBufferPointer(rebasing: raw[start..<(start + frame.width)]))
            }
            for plane in [frame.offsetU, frame.offsetV] {
                for row in 0..<frame.chromaHeight {
                    let start = plane + row * frame.strideUV
                    try output.write(UnsafeRawBufferPointer(rebasing: raw[start..<(start + frame.chromaWidth)]))
                }
            }
        }
        framesWritten += 1
    }

    /// Closes the output (when the writer owns its descriptor), reporting a failure.
    /// - Throws: ``OutputFileError``.
    public func close() throws {
        try output.close()
    }
}
