public import H264

/// What we offer to receive (the WHEP client side): the H.264 formats we decode, their RTX companions, FlexFEC, the
/// feedback we send and the header extensions we read.
///
/// The defaults are what our receiver handles: Constrained Baseline 3.1 (PT 96, RTX 97) and High 3.1 (PT 98, RTX 99)
/// in packetization mode 1 (OpenH264 decodes both), FlexFEC-03 (PT 49), NACK, PLI, FIR and transport-wide feedback,
/// and the transport-cc, abs-capture-time, playout-delay and dependency-descriptor extensions. No `goog-remb`: our
/// receiver sends transport-wide feedback, from which the sender estimates.
public struct VideoReceiveConfiguration: Hashable, Sendable {
    /// One offered H.264 format.
    public struct Format: Hashable, Sendable {
        /// Its payload type (96-127).
        public var payloadType: UInt8
        /// Its RTX payload type (96-127), or nil for none.
        public var rtxPayloadType: UInt8?
        /// Its profile and level.
        public var profileLevelID: ProfileLevelID

        /// Creates a format (packetization mode 1).
        /// - Parameters:
        ///   - payloadType: Its payload type.
        ///   - rtxPayloadType: Its RTX payload type, or nil.
        ///   - profileLevelID: Its profile and level.
        public init(payloadType: UInt8, rtxPayloadType: UInt8?, profileLevelID: ProfileLevelID) {
            self.payloadType = payloadType
            self.rtxPayloadType = rtxPayloadType
            self.profileLevelID = profileLevelID
        }
    }

    /// The formats offered, in preference order.
    public var formats: [Format] = [
        Format(payloadType: 96, rtxPayloadType: 97, profileLevelID: ProfileLevelID(profileIdc: 0x42, profileIOP: 0xE0, levelIdc: 0x1F)),
        Format(payloadType: 98, rtxPayloadType: 99, profileLevelID: ProfileLevelID(profileIdc: 0x64, profileIOP: 0x00, levelIdc: 0x1F)),
    ]
    /// The FlexFEC-03 payload type offered, or nil for none.
    public var fecPayloadType: UInt8? = 49
    /// The `a=rtcp-fb` values offered for each format (`transport-cc` is added with `transportWideCC`).
    public var feedback = ["nack", "nack pli", "ccm fir"]
    /// Whether transport-wide feedback is offered (the extension and `transport-cc`).
    public var transportWideCC = true
    /// The header extensions offered, id and URI (1...14, one-byte form).
    public var extensions: [(id: Int, uri: String)] = [
        (3, VideoSendConfiguration.transportCCURI),
        (4, VideoSendConfiguration.absoluteCaptureTimeURI),
        (5, VideoSendConfiguration.playoutDelayURI),
        (6, VideoSendConfiguration.dependencyDescriptorURI),
    ]

    /// The defaults above.
    public init() {}

    /// Whether two configurations offer the same (extensions compared by id and URI, in order).
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.formats == rhs.formats && lhs.fecPayloadType == rhs.fecPayloadType && lhs.feedback == rhs.feedback
            && lhs.transportWideCC == rhs.transportWideCC
            && lhs.extensions.map(\.id) == rhs.extensions.map(\.id) && lhs.extensions.map(\.uri) == rhs.extensions.map(\.uri)
    }

    /// Hashes what `==` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(formats)
        hasher.combine(fecPayloadType)
        hasher.combine(feedback)
        hasher.combine(transportWideCC)
        hasher.combine(extensions.map(\.id))
        hasher.combine(extensions.map(\.uri))
    }

    /// The extensions actually offered: transport-cc only with `transportWideCC`, each id 1...14 and used once.
    var offeredExtensions: [(id: Int, uri: String)] {
        var result: [(id: Int, uri: String)] = []
        for (id, uri) in extensions
        where (1...14).contains(id) && !result.contains(where: { $0.id == id || $0.uri == uri })
            && (transportWideCC || uri != VideoSendConfiguration.transportCCURI) {
            result.append((id, uri))
        }
        return result
    }
}
