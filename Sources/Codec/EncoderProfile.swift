/// The H.264 profiles the encoder produces (ITU-T H.264 Annex A.2).
public enum EncoderProfile: String, Sendable, CaseIterable, CustomStringConvertible {
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

    /// The constraint flags byte OpenH264 2.3 writes after `profile_idc` in the SPS (and so in `profile-level-id`,
    /// RFC 6184 section 8.1), measured: Constrained Baseline `0xC0` (`constraint_set0_flag` and
    /// `constraint_set1_flag`: "42c01f" at level 3.1); High `0x0C` (`constraint_set4_flag`, frame_mbs_only, and
    /// `constraint_set5_flag`, no B-slices).
    public var constraintFlags: UInt8 {
        switch self {
        case .constrainedBaseline: return 0xC0
        case .high: return 0x0C
        }
    }

    /// The factor applied to Table A-1's MaxBR for this profile: 1000 for Baseline (Table A-2 `cpbBrVclFactor`), 1200
    /// for High. High's `cpbBrVclFactor` is 1250, but OpenH264 2.3.1 checks every profile's ceiling against
    /// MaxBR x 1200 (its `CpbBrNalFactor`) and, above it, silently raises `level_idc` in the SPS (measured: High at
    /// 720p with a 17.4 Mbit/s ceiling writes level 3.2, "640c20", while the SDP says "640c1f"). 1200 keeps the level
    /// written equal to the level configured.
    public var bitrateFactor: Int {
        switch self {
        case .constrainedBaseline: return 1000
        case .high: return 1200
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
