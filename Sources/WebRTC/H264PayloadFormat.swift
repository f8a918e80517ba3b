public import H264

/// An H.264 RTP payload format in an SDP media section: payload type, `profile-level-id`, `packetization-mode`,
/// `level-asymmetry-allowed` (RFC 6184 section 8.1), its RTX companion (RFC 4588) and its `a=rtcp-fb` values.
public struct H264PayloadFormat: Hashable, Sendable {
    /// The RTP payload type.
    public var payloadType: UInt8
    /// `profile-level-id`; 420010 (Baseline, level 1) when absent (RFC 6184 section 8.1).
    public var profileLevelID: ProfileLevelID
    /// `packetization-mode`: 0 (single NAL unit) or 1 (non-interleaved); 0 when absent.
    public var packetizationMode: Int
    /// `level-asymmetry-allowed=1`.
    public var levelAsymmetryAllowed: Bool
    /// The payload type of the `rtx` format whose `apt` names this one.
    public var rtxPayloadType: UInt8?
    /// The payload type of the section's `flexfec-03` format, when both sides use FlexFEC (set by the answerer).
    public var fecPayloadType: UInt8? = nil
    /// The `a=rtcp-fb` values for this payload type (`nack`, `nack pli`, `ccm fir`, `goog-remb`, `transport-cc`).
    public var feedback: [String]

    /// `profile-level-id` when the parameter is absent (RFC 6184 section 8.1).
    public static let defaultProfileLevelID = ProfileLevelID(profileIdc: 0x42, profileIOP: 0x00, levelIdc: 0x0A)
    /// The H.264 RTP clock rate (RFC 6184 section 8.2.1).
    public static let clockRate = 90_000

    /// Creates a format.
    /// - Parameters:
    ///   - payloadType: The payload type.
    ///   - profileLevelID: The profile and level.
    ///   - packetizationMode: 0 or 1.
    ///   - levelAsymmetryAllowed: Whether levels may differ per direction.
    ///   - rtxPayloadType: The RTX payload type, if any.
    ///   - feedback: The `a=rtcp-fb` values.
    public init(payloadType: UInt8, profileLevelID: ProfileLevelID, packetizationMode: Int,
                levelAsymmetryAllowed: Bool = true, rtxPayloadType: UInt8? = nil, feedback: [String] = []) {
        self.payloadType = payloadType
        self.profileLevelID = profileLevelID
        self.packetizationMode = packetizationMode
        self.levelAsymmetryAllowed = levelAsymmetryAllowed
        self.rtxPayloadType = rtxPayloadType
        self.feedback = feedback
    }

    /// The H.264 formats of a media section, in the section's preference order. Formats whose parameters do not
    /// parse, or with a packetization mode other than 0 or 1, are skipped; a payload type listed twice on the `m=`
    /// line counts once.
    ///
    /// Linear in the section's size: its lines are read once (`PayloadAttributes`), and at most 128 formats (the
    /// 7-bit payload types) come out, each with a bounded feedback list.
    /// - Parameters:
    ///   - section: The media section.
    public static func formats(in section: JSEPMediaSection) -> [H264PayloadFormat] {
        let attributes = PayloadAttributes(section)
        var rtxByApt: [Int: Int] = [:]
        for (payloadType, map) in attributes.rtpMaps where map.name.caseInsensitiveEquals("rtx") {
            if let apt = attributes.parameters[payloadType]?["apt"].flatMap(PayloadAttributes.payloadType),
               rtxByApt[apt].map({ payloadType < $0 }) ?? true {
                rtxByApt[apt] = payloadType  // the lowest wins, whatever the dictionary's order
            }
        }
        var seen = Set<Int>()
        var result: [H264PayloadFormat] = []
        var previous: String?
        for text in section.formats {
            if text == previous { continue }  // the commonest repetition, skipped without parsing
            previous = text
            guard let payloadType = PayloadAttributes.payloadType(text[...]), seen.insert(payloadType).inserted,
                  let map = attributes.rtpMaps[payloadType], map.name.caseInsensitiveEquals("H264"),
                  map.clockRate == clockRate
            else { continue }
            let parameters = attributes.parameters[payloadType] ?? [:]
            let profile: ProfileLevelID
            if let text = parameters["profile-level-id"] {
                guard let parsed = try? ProfileLevelID(string: String(text.prefix(16))) else { continue }
                profile = parsed
            } else {
                profile = defaultProfileLevelID
            }
            let mode = parameters["packetization-mode"].map { $0.utf8.count <= 3 ? Int($0) ?? -1 : -1 } ?? 0
            guard mode == 0 || mode == 1 else { continue }
            result.append(H264PayloadFormat(
                payloadType: UInt8(payloadType), profileLevelID: profile, packetizationMode: mode,
                levelAsymmetryAllowed: parameters["level-asymmetry-allowed"] == "1",
                rtxPayloadType: rtxByApt[payloadType].map { UInt8($0) },
                feedback: attributes.feedback(payloadType)))
        }
        return result
    }

    /// The FlexFEC encoding name libwebrtc offers (`a=rtpmap:<pt> flexfec-03/90000`).
    public static let flexFECName = "flexfec-03"

    /// The lowest payload type of the section's `m=` line mapped to `flexfec-03/90000` (Chromium offers one in a
    /// recvonly section: it receives FlexFEC by default), or nil.
    /// - Parameter section: The media section.
    public static func flexFECPayloadType(in section: JSEPMediaSection) -> UInt8? {
        let attributes = PayloadAttributes(section)
        var lowest: Int?
        var listed: Set<Int>?
        for (payloadType, map) in attributes.rtpMaps
        where map.name.caseInsensitiveEquals(flexFECName[...]) && map.clockRate == clockRate {
            // The m= line's types, read once (it may repeat a type thousands of times).
            if listed == nil { listed = Set(section.formats.prefix(4096).compactMap { PayloadAttributes.payloadType($0[...]) }) }
            guard listed?.contains(payloadType) == true else { continue }
            if lowest.map({ payloadType < $0 }) ?? true { lowest = payloadType }
        }
        return lowest.map { UInt8($0) }
    }

    /// The `a=fmtp` value: `level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f`.
    public var fmtpValue: String {
        "level-asymmetry-allowed=\(levelAsymmetryAllowed ? 1 : 0);packetization-mode=\(packetizationMode);"
            + "profile-level-id=\(profileLevelID)"
    }

    /// Whether this format can carry a stream of `profile` in `mode`: same packetization mode and the same profile
    /// (RFC 6184 section 8.2.2), or, when `acceptBaseline` is set, a Baseline format for a Constrained Baseline
    /// stream (a Constrained Baseline bitstream is a Baseline bitstream, H.264 A.2.1.1).
    /// - Parameters:
    ///   - profile: Our profile-level-id.
    ///   - mode: Our packetization mode.
    ///   - acceptBaseline: Whether to accept Baseline for Constrained Baseline.
    public func carries(_ profile: ProfileLevelID, mode: Int, acceptBaseline: Bool = false) -> Bool {
        guard packetizationMode == mode, let ours = profile.profile, let theirs = profileLevelID.profile else {
            return false
        }
        if ours == theirs { return true }
        return acceptBaseline && ours == .constrainedBaseline && theirs == .baseline
    }
}
