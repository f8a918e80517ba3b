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
    /// parse, or with a packetization mode other than 0 or 1, are skipped.
    /// - Parameters:
    ///   - section: The media section.
    public static func formats(in section: JSEPMediaSection) -> [H264PayloadFormat] {
        let maps = section.rtpMaps
        var rtxByApt: [Int: Int] = [:]
        for (payloadType, map) in maps where map.name.lowercased() == "rtx" {
            if let apt = section.formatParameters(payloadType)["apt"].flatMap({ Int($0) }) { rtxByApt[apt] = payloadType }
        }
        return section.formats.compactMap { text -> H264PayloadFormat? in
            guard let payloadType = Int(text), let pt = UInt8(exactly: payloadType), pt < 128,
                  let map = maps[payloadType], map.name.uppercased() == "H264", map.clockRate == clockRate
            else { return nil }
            let parameters = section.formatParameters(payloadType)
            let profile: ProfileLevelID
            if let text = parameters["profile-level-id"] {
                guard let parsed = try? ProfileLevelID(string: text) else { return nil }
                profile = parsed
            } else {
                profile = defaultProfileLevelID
            }
            let mode = parameters["packetization-mode"].map { Int($0) ?? -1 } ?? 0
            guard mode == 0 || mode == 1 else { return nil }
            return H264PayloadFormat(
                payloadType: pt, profileLevelID: profile, packetizationMode: mode,
                levelAsymmetryAllowed: parameters["level-asymmetry-allowed"] == "1",
                rtxPayloadType: rtxByApt[payloadType].flatMap { UInt8(exactly: $0) },
                feedback: section.rtcpFeedback(payloadType))
        }
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
