import H264

extension EncoderConfiguration {
    /// The `profile-level-id` SDP parameter for this configuration (RFC 6184 section 8.1): `profile_idc`, the
    /// constraint flags byte and `level_idc`, exactly as in the SPS the encoder writes (its `description` is
    /// "42c01f" for Constrained Baseline 3.1, "640c1f" for High 3.1). Built from the bytes OpenH264 writes rather than
    /// `ProfileLevelID(profile:levelIdc:)`, whose canonical Constrained Baseline is WebRTC's "42e01f".
    public var profileLevelID: ProfileLevelID {
        ProfileLevelID(profileIdc: profile.profileIdc, profileIOP: profile.constraintFlags, levelIdc: level.levelIdc)
    }
}
