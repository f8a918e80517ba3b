/// The H.264 profiles the encoder produces (ITU-T H.264 Annex A.2).
public enum H264Profile: String, Sendable, CaseIterable, CustomStringConvertible {
    /// Constrained Baseline: `profile_idc` 66 with `constraint_set1_flag` (A.2.1.1), the profile every WebRTC endpoint
    /// must decode (RFC 7742 section 6.2). CAVLC, no B-slices.
    case constrainedBaseline = "baseline"
    /// High: `profile_idc` 100 (A.2.4). CABAC and 8x8 transforms; still no B-slices in real-time use.
    case high

    /// The `profile_idc` written in the SPS (H.264 section 7.4.2.1.1).
    public var profileIdc: UInt8 {
        switch self {
        case .constrainedBaseline: return 66
        case .high: return 100
        }
    }

    /// The constraint flags byte that follows `profile_idc` in the SPS and in `profile-level-id` (RFC 6184 section
    /// 8.1): `constraint_set0_flag` is bit 7, `constraint_set1_flag` bit 6. Constrained Baseline sets set0 and set1
    /// (a stream that also conforms to Main), as WebRTC's `42e01f` / `42c01f` do; High sets none.
    public var minimumConstraintFlags: UInt8 {
        switch self {
        case .constrainedBaseline: return 0x40
        case .high: return 0x00
        }
    }

    /// The factor applied to Table A-1's MaxBR for this profile (Table A-2 `cpbBrVclFactor`): 1000 for Baseline,
    /// 1250 for High.
    public var bitrateFactor: Int {
        switch self {
        case .constrainedBaseline: return 1000
        case .high: return 1250
        }
    }

    /// Entropy coding used: CAVLC (0) for Constrained Baseline, CABAC (1) for High (OpenH264 `iEntropyCodingModeFlag`).
    var entropyCodingModeFlag: Int32 { self == .high ? 1 : 0 }

    /// A readable name.
    public var description: String {
        switch self {
        case .constrainedBaseline: return "Constrained Baseline"
        case .high: return "High"
        }
    }
}
