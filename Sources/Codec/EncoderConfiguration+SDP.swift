extension EncoderConfiguration {
    /// The `profile-level-id` SDP parameter for this configuration (RFC 6184 section 8.1): `profile_idc`, the
    /// constraint flags byte and `level_idc` as six hex digits, exactly as in the SPS the encoder writes
    /// ("42c01f" for Constrained Baseline 3.1, "640c1f" for High 3.1).
    public var profileLevelID: String {
        [profile.profileIdc, profile.constraintFlags, level.levelIdc]
            .map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }
            .joined()
    }
}
