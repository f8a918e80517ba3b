import ArgumentParser

/// A picture size given as `WxH`, e.g. `1280x720`.
struct FrameSize: ExpressibleByArgument, CustomStringConvertible {
    /// Width in pixels.
    var width: Int
    /// Height in pixels.
    var height: Int

    /// Creates a size.
    /// - Parameters:
    ///   - width: pixels.
    ///   - height: pixels.
    init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// Parses `WxH` (either case of x), both positive.
    /// - Parameter argument: the text.
    init?(argument: String) {
        let parts = argument.lowercased().split(separator: "x")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0 else { return nil }
        self.init(width: w, height: h)
    }

    /// `WxH`.
    var description: String { "\(width)x\(height)" }
}
