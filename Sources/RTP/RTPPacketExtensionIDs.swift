/// The negotiated one-byte-form IDs (RFC 8285 section 4.2: 1...14) of the per-frame header extensions a packetizer
/// may write (`RTPPacketExtensions`); nil leaves an extension out.
public struct RTPPacketExtensionIDs: Hashable, Sendable {
    /// The ID of `abs-capture-time`, or nil.
    public var absoluteCaptureTime: UInt8?
    /// The ID of `playout-delay`, or nil.
    public var playoutDelay: UInt8?

    /// No per-frame extension.
    public static let none = RTPPacketExtensionIDs()

    /// Creates a set of IDs.
    /// - Parameters:
    ///   - absoluteCaptureTime: the ID of `abs-capture-time`, or nil.
    ///   - playoutDelay: the ID of `playout-delay`, or nil.
    public init(absoluteCaptureTime: UInt8? = nil, playoutDelay: UInt8? = nil) {
        self.absoluteCaptureTime = absoluteCaptureTime
        self.playoutDelay = playoutDelay
    }

    /// The most bytes the elements take (headers and data) when every configured one is present.
    var maximumElementBytes: Int {
        (absoluteCaptureTime != nil ? 1 + AbsoluteCaptureTime.shortSize : 0)
            + (playoutDelay != nil ? 1 + PlayoutDelay.size : 0)
    }
}
