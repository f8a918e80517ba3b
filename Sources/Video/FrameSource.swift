/// A source of frames read one after another (the built-in test pattern, a Y4M file or pipe), driven by a
/// `FramePump` that pushes them into an `H264Sender`. A live source (a camera, a render loop) pushes with
/// `H264Sender.send` instead. `nextFrame(into:)` fills the sender's reused buffer, so nothing is copied twice.
/// Frames of another size than the encoder's are centre-cropped and scaled by the encoder.
public protocol FrameSource: AnyObject {
    /// The width of the frames this source produces.
    var width: Int { get }
    /// The height of the frames this source produces.
    var height: Int { get }
    /// The source's own frame rate, if it has one (a Y4M header's), else nil.
    var nativeFrameRate: Double? { get }

    /// Writes the next frame into `frame` (a buffer of `width` x `height` owned by the caller and reused).
    /// - Parameter frame: the buffer to fill.
    /// - Returns: false at the end of the source.
    /// - Throws: when the source is broken (a truncated Y4M frame, a read error).
    func nextFrame(into frame: inout I420Frame) throws -> Bool

}

/// The built-in moving test pattern (colour bars, a moving box, the frame number burnt in): the default source.
public final class PatternSource: FrameSource {
    private let pattern: TestPattern
    /// The index of the next frame.
    public private(set) var frameIndex = 0

    public var width: Int { pattern.width }
    public var height: Int { pattern.height }
    public var nativeFrameRate: Double? { nil }

    /// Creates a pattern source.
    /// - Parameters:
    ///   - width: frame width (even).
    ///   - height: frame height (even).
    /// - Throws: `VideoError` for an invalid size.
    public init(width: Int, height: Int) throws {
        pattern = try TestPattern(width: width, height: height)
    }

    public func nextFrame(into frame: inout I420Frame) throws -> Bool {
        pattern.render(frameIndex: frameIndex, into: &frame)
        frameIndex += 1
        return true
    }
}

/// A Y4M file or pipe (`-` for standard input), read into the caller's reused buffer. Stops at its end.
///
/// It reads (`read(2)`) rather than mapping the file and lending frames in place: measured on the 415 MB testsrc2
/// clip, mapping cost as much in page faults and unmapping as the copy it saved (Docs/Benchmarks.md).
public final class Y4MSource: FrameSource {
    private let reader: Y4MReader

    public var width: Int { reader.header.width }
    public var height: Int { reader.header.height }
    public var nativeFrameRate: Double? { reader.header.frameRate }

    /// Opens a Y4M stream.
    /// - Parameter path: a file path, or `-` for standard input.
    /// - Throws: `Y4MError` for a bad header or unsupported colour space, or an I/O error.
    public init(path: String) throws {
        reader = path == "-" ? try Y4MReader(fileDescriptor: 0, closeOnDeinit: false) : try Y4MReader(path: path)
    }

    public func nextFrame(into frame: inout I420Frame) throws -> Bool {
        try reader.readFrame(into: &frame)
    }
}
