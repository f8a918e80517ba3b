/// Errors reading or writing YUV4MPEG2 streams. Frame errors name the zero-based frame index.
public enum Y4MError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The stream header is missing, malformed or lacks a required field.
    case badHeader(String)
    /// The `C` tag names a colour space other than 4:2:0 8-bit.
    case unsupportedColorSpace(String)
    /// A frame does not start with `FRAME` and a newline.
    case badFrameHeader(frameIndex: Int)
    /// The stream ended inside a frame.
    case truncatedFrame(frameIndex: Int, expectedBytes: Int, receivedBytes: Int)
    /// A frame to write does not have the stream's size.
    case frameSizeMismatch(frameIndex: Int, expectedWidth: Int, expectedHeight: Int, width: Int, height: Int)
    /// A system call failed (errno kept).
    case system(operation: String, errno: Int32)

    /// A readable explanation.
    public var description: String {
        switch self {
        case .badHeader(let why): return "Y4M: bad stream header: \(why)"
        case .unsupportedColorSpace(let c): return "Y4M: unsupported colour space C\(c) (only 4:2:0 8-bit is supported)"
        case .badFrameHeader(let i): return "Y4M: frame \(i): missing FRAME header"
        case .truncatedFrame(let i, let e, let r): return "Y4M: frame \(i) truncated: \(r) of \(e) bytes"
        case .frameSizeMismatch(let i, let ew, let eh, let w, let h):
            return "Y4M: frame \(i) is \(w)x\(h), stream is \(ew)x\(eh)"
        case .system(let op, let e): return "Y4M: \(op) failed: errno \(e)"
        }
    }
}
