/// The header extension elements that change from frame to frame, as one packet carries them (the packetizer's fixed
/// block, the transport-wide sequence number, is not among them). A value is written only when the packetizer has an
/// ID for it (`RTPPacketExtensionIDs`).
public struct RTPPacketExtensions: Hashable, Sendable {
    /// The frame's capture time (`abs-capture-time`), or nil.
    public var absoluteCaptureTime: AbsoluteCaptureTime?
    /// The playout delay bounds (`playout-delay`), or nil.
    public var playoutDelay: PlayoutDelay?
    /// The dependency descriptor, or nil.
    public var dependencyDescriptor: DependencyDescriptorElement?

    /// No element.
    public static let none = RTPPacketExtensions()

    /// Creates a set of values.
    /// - Parameters:
    ///   - absoluteCaptureTime: the capture time to carry, or nil.
    ///   - playoutDelay: the playout delay to carry, or nil.
    ///   - dependencyDescriptor: the dependency descriptor to carry, or nil.
    public init(
        absoluteCaptureTime: AbsoluteCaptureTime? = nil, playoutDelay: PlayoutDelay? = nil,
        dependencyDescriptor: DependencyDescriptorElement? = nil
    ) {
        self.absoluteCaptureTime = absoluteCaptureTime
        self.playoutDelay = playoutDelay
        self.dependencyDescriptor = dependencyDescriptor
    }

    /// Whether no element is set.
    public var isEmpty: Bool { absoluteCaptureTime == nil && playoutDelay == nil && dependencyDescriptor == nil }
}
