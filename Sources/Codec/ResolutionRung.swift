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

    /// Luma samples per picture (saturating at `Int.max` for a made-up size, so that no rung can trap a floor
    /// computation).
    public var pixels: Int {
        let (product, overflow) = width.multipliedReportingOverflow(by: height)
        return overflow ? .max : product
    }

    /// `WxH`.
    public var description: String { "\(width)x\(height)" }
}
