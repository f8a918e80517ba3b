/// The H.264 profiles RFC 6184 section 8.1 names in its `profile-level-id` table (Table 5), plus Constrained High
/// (H.264 A.2.11, signalled as `640c` by WebRTC).
public enum H264Profile: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// Constrained Baseline (H.264 A.2.1.1).
    case constrainedBaseline = "Constrained Baseline"
    /// Baseline (A.2.1).
    case baseline = "Baseline"
    /// Main (A.2.2).
    case main = "Main"
    /// Extended (A.2.3).
    case extended = "Extended"
    /// High (A.2.4).
    case high = "High"
    /// Constrained High (A.2.11).
    case constrainedHigh = "Constrained High"
    /// High 10 (A.2.5).
    case high10 = "High 10"
    /// High 4:2:2 (A.2.6).
    case high422 = "High 4:2:2"
    /// High 4:4:4 Predictive (A.2.7).
    case high444 = "High 4:4:4 Predictive"
    /// High 10 Intra (A.2.8).
    case high10Intra = "High 10 Intra"
    /// High 4:2:2 Intra (A.2.9).
    case high422Intra = "High 4:2:2 Intra"
    /// High 4:4:4 Intra (A.2.10).
    case high444Intra = "High 4:4:4 Intra"
    /// CAVLC 4:4:4 Intra (A.2.12).
    case cavlc444Intra = "CAVLC 4:4:4 Intra"

    /// The name used by H.264 and ffprobe (e.g. "Constrained Baseline", "High 4:2:2").
    public var description: String { rawValue }
}
