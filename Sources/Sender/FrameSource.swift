import Video

/// Where the sender takes raw frames from: the built-in test pattern, a Y4M file or pipe, or a user's camera or
/// render loop. The sender asks for one frame per tick with `withNextFrame(buffer:_:)`: a source that holds its
/// frames in memory of its own (a camera's or a render loop's buffers) lends them in place; any other
/// source implements `nextFrame(into:)` only and fills the buffer the sender reuses. Frames of another size than the
/// encoder's are centre-cropped and scaled by the encoder.
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

    /// Lends the next frame to `body`, without a copy where the source can.
    /// - Parameters:
    ///   - buffer: a reused buffer of `width` x `height` the source may fill and lend (the default does).
    ///   - body: receives the frame, valid only during the call.
    /// - Returns: what `body` returns, or nil at the end of the source.
    /// - Throws: when the source is broken, or what `body` throws.
    func withNextFrame<R>(buffer: inout I420Frame, _ body: (I420FrameView) throws -> R) throws -> R?
}

extension FrameSource {
    /// Fills `buffer` with `nextFrame(into:)` and lends it: the default for sources that produce frames by writing
    /// them.
    public func withNextFrame<R>(buffer: inout I420Frame, _ body: (I420FrameView) throws -> R) throws -> R? {
        guard try nextFrame(into: &buffer) else { return nil }
        return try buffer.withView(body)
    }
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
