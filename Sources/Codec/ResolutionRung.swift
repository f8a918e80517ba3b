/// One picture size of a `ResolutionLadder`.
public struct ResolutionRung: Sendable, Hashable, CustomStringConvertible {
    /// Width in pixels (even).
    public var width: Int
    /// Height in pixels (even).
    public var height: Int

    /// Creates a rung.
    /// - Parameters:
    ///   - width: pixels.
    ///   - height: pixels.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// Luma samples per picture.
    public var pixels: Int { width * height }

    /// `WxH`.
    public var description: String { "\(width)x\(height)" }
}
