import Synchronization
import Video

/// Decoded pictures written as Y4M, opened at the first picture: at `--output-size`, or else at the first picture's
/// size. Pictures of another size (the sender switched resolution) are scaled to it (`ScalingY4MWriter`) and the first
/// of them is reported once, so that the file keeps every frame. Written on the receiver's loop; the lock only guards
/// against a late close.
final class DecodedFrameFile: Sendable {
    private let path: String
    private let size: FrameSize?
    private let report: @Sendable (String) -> Void
    private let state = Mutex<(writer: ScalingY4MWriter?, reported: Bool, error: String?)>((nil, false, nil))

    /// Creates the file's writer (the file is opened by the first picture).
    /// - Parameters:
    ///   - path: the output path, or "-".
    ///   - size: the size to write every frame at, or nil for the first picture's.
    ///   - report: receives the one line that says the output is being scaled.
    init(path: String, size: FrameSize?, report: @escaping @Sendable (String) -> Void) {
        self.path = path
        self.size = size
        self.report = report
    }

    /// Writes one picture (scaled to the output's size if it has another); after a failure, nothing more is written.
    /// - Parameter picture: the decoded picture.
    func write(_ picture: I420Frame) {
        let message: String? = state.withLock { state in
            guard state.error == nil else { return nil }
            do {
                let writer: ScalingY4MWriter
                if let existing = state.writer {
                    writer = existing
                } else {
                    let header = Y4MHeader(width: size?.width ?? picture.width, height: size?.height ?? picture.height)
                    writer = try ScalingY4MWriter(writer: try Y4MWriter(path: path, header: header))
                    state.writer = writer
                }
                let index = writer.framesWritten
                guard try writer.write(picture), !state.reported else { return nil }
                state.reported = true
                let target = "\(writer.header.width)x\(writer.header.height)"
                if index == 0 {
                    return "receive: the stream is \(picture.width)x\(picture.height); scaling to \(target) for the Y4M output"
                }
                return "receive: the stream changed to \(picture.width)x\(picture.height) at frame \(index); "
                    + "scaling to \(target) for the Y4M output"
            } catch {
                state.error = "\(error)"
                return nil
            }
        }
        if let message { report(message) }
    }

    /// Closes the file; returns the first error, if any.
    func close() -> String? {
        state.withLock { state in
            if let writer = state.writer, state.error == nil {
                do { try writer.close() } catch { state.error = "\(error)" }
            }
            state.writer = nil
            return state.error
        }
    }
}
