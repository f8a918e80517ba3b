/// Writes pictures of any size as one YUV4MPEG2 stream of the header's size, as ffmpeg does when a decoded stream
/// changes resolution (its scale filter brings every frame to the output's size): a picture of the header's size is
/// written as it is, any other is centre-cropped to the header's aspect ratio and scaled (``FrameConverter``: libyuv
/// `I420Scale`, box filter).
///
/// Why: a Y4M stream has one size, in its header, and ``Y4MWriter`` refuses any other; a sender that adapts its
/// resolution to the bitrate would otherwise cut the file at its first switch. The counters say what happened, for the
/// caller to report.
public final class ScalingY4MWriter {
    /// The writer that owns the output; its header fixes the size of every frame written.
    private let writer: Y4MWriter
    /// Crops and scales to the header's size.
    private let converter: FrameConverter
    /// The scaled picture, reused from frame to frame.
    private var scaled: I420Frame
    /// The size of the last picture given, nil before the first.
    private var lastInputSize: (width: Int, height: Int)?

    /// The stream header (the output's size).
    public var header: Y4MHeader { writer.header }
    /// Frames written so far.
    public var framesWritten: Int { writer.framesWritten }
    /// Frames that had another size than the header's and were scaled.
    public private(set) var framesScaled = 0
    /// How often a picture's size differed from the one before it.
    public private(set) var inputSizeChanges = 0

    /// Wraps a writer; every frame written through it comes out at the writer's header size.
    /// - Parameter writer: the Y4M writer, owned from now on.
    /// - Throws: `VideoError.invalidSize` if the header's size is not positive.
    public init(writer: Y4MWriter) throws(VideoError) {
        self.writer = writer
        converter = try FrameConverter(width: writer.header.width, height: writer.header.height)
        scaled = I420Frame(width: writer.header.width, height: writer.header.height)
    }

    /// Appends one picture, scaled to the header's size if it has another.
    /// - Parameter frame: the picture, any size.
    /// - Returns: whether it was scaled.
    /// - Throws: `VideoError.libyuv` if scaling fails, ``OutputFileError`` if writing does.
    @discardableResult
    public func write(_ frame: I420Frame) throws -> Bool {
        if let last = lastInputSize, last != (frame.width, frame.height) { inputSizeChanges += 1 }
        lastInputSize = (frame.width, frame.height)
        guard frame.width != header.width || frame.height != header.height else {
            try writer.write(frame)
            return false
        }
        let converter = self.converter
        try frame.withView { (view) throws(VideoError) in try converter.convert(view, into: &scaled) }
        try writer.write(scaled)
        framesScaled += 1
        return true
    }

    /// Closes the output (when the writer owns its descriptor), reporting a failure.
    /// - Throws: ``OutputFileError``.
    public func close() throws {
        try writer.close()
    }
}
