/// The negotiated one-byte-form IDs (RFC 8285 section 4.2: 1...14) of the per-frame header extensions a packetizer
/// may write (`RTPPacketExtensions`); nil leaves an extension out.
public struct RTPPacketExtensionIDs: Hashable, Sendable {
    /// The ID of `abs-capture-time`, or nil.
    public var absoluteCaptureTime: UInt8?
    /// The ID of `playout-delay`, or nil.
    public var playoutDelay: UInt8?
    /// The ID of the dependency descriptor (`DependencyDescriptor.uri`), or nil.
    public var dependencyDescriptor: UInt8?

    /// No per-frame extension.
    public static let none = RTPPacketExtensionIDs()

    /// Creates a set of IDs.
    /// - Parameters:
    ///   - absoluteCaptureTime: the ID of `abs-capture-time`, or nil.
    ///   - playoutDelay: the ID of `playout-delay`, or nil.
    ///   - dependencyDescriptor: the ID of the dependency descriptor, or nil.
    public init(absoluteCaptureTime: UInt8? = nil, playoutDelay: UInt8? = nil, dependencyDescriptor: UInt8? = nil) {
        self.absoluteCaptureTime = absoluteCaptureTime
        self.playoutDelay = playoutDelay
        self.dependencyDescriptor = dependencyDescriptor
    }

    /// The IDs given, in the order their elements are written.
    var given: [UInt8] { [absoluteCaptureTime, playoutDelay, dependencyDescriptor].compactMap { $0 } }

    /// The most bytes the elements take (headers and data) when every configured one is present.
    var maximumElementBytes: Int {
        (absoluteCaptureTime != nil ? 1 + AbsoluteCaptureTime.shortSize : 0)
            + (playoutDelay != nil ? 1 + PlayoutDelay.size : 0)
            + (dependencyDescriptor != nil ? 1 + DependencyDescriptorElement.maximumSize : 0)
    }
}
