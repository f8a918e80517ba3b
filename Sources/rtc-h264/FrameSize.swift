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

    /// The largest width or height parsed: far above any level's limit (level 5.1 allows 8192 pixels), small
    /// enough for any later arithmetic. The level's real limits are checked by the encoder configuration.
    static let maximumDimension = 16_384

    /// Parses `WxH` (either case of x), both in `1...maximumDimension`.
    /// - Parameter argument: the text.
    init?(argument: String) {
        let parts = argument.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count <= 6, parts[1].count <= 6, let w = Int(parts[0]), let h = Int(parts[1]),
              (1...Self.maximumDimension).contains(w), (1...Self.maximumDimension).contains(h) else { return nil }
        self.init(width: w, height: h)
    }

    /// `WxH`.
    var description: String { "\(width)x\(height)" }
}
