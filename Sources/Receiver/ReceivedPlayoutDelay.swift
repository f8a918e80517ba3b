/// The playout delay bounds the sender last asked for (`playout-delay`), in milliseconds.
public struct ReceivedPlayoutDelay: Codable, Sendable, Equatable {
    /// The minimum delay from capture to render.
    public var minimumMilliseconds: Int
    /// The maximum delay from capture to render.
    public var maximumMilliseconds: Int

    /// Creates bounds.
    /// - Parameters:
    ///   - minimumMilliseconds: the minimum delay, ms.
    ///   - maximumMilliseconds: the maximum delay, ms.
    public init(minimumMilliseconds: Int, maximumMilliseconds: Int) {
        self.minimumMilliseconds = minimumMilliseconds
        self.maximumMilliseconds = maximumMilliseconds
    }
}
