internal import CSRTP

/// One libsrtp session (`srtp_t`) that protects outbound or unprotects inbound RTP and RTCP packets in place.
///
/// The session owns its `srtp_t`: created in `init`, released with `srtp_dealloc` in `deinit`. libsrtp sessions are
/// not thread-safe, so the type is deliberately not `Sendable`: one stage (one thread or event loop) owns it.
/// Replay protection is always on. Packets are processed in the caller's memory with no allocation per packet.
///
/// ```swift
/// let sender = try SRTPSession(direction: .outbound, suite: .default, key: key)
/// var buffer = [UInt8](repeating: 0, count: 1200 + SRTPSuite.maxRTPTrailer)
/// let wireLength = try sender.protectRTP(&buffer, length: rtpLength)
/// ```
public final class SRTPSession {
    /// Which way packets flow through the session.
    public enum Direction: Sendable, Hashable {
        /// The session protects packets we send.
        case outbound
        /// The session unprotects packets we receive.
        case inbound
    }

    /// Which SSRCs the session's key applies to.
    public enum SSRCPolicy: Sendable, Hashable {
        /// Any SSRC in the session's direction (`ssrc_any_outbound` / `ssrc_any_inbound`); streams are created as
        /// packets with new SSRCs arrive.
        case any
        /// Only this SSRC (`ssrc_specific`); packets with other SSRCs fail with `srtp_err_status_no_ctx`.
        case specific(UInt32)
    }

    /// The default replay window in packets, wide enough for a video burst reordered by the network.
    /// (libsrtp's own default is 128; WebRTC uses 1024 for video.)
    public static let defaultReplayWindow = 1024
    /// The replay window range libsrtp accepts (`srtp_rdbx_init`: at least 64, below 2^15).
    public static let replayWindowRange = 64..<0x8000

    /// The suite the session was created with.
    public let suite: SRTPSuite
    /// The direction the session was created for.
    public let direction: Direction

    let session: srtp_t

    /// Creates a session with one key for one direction.
    ///
    /// - Parameters:
    ///   - direction: `.outbound` to protect, `.inbound` to unprotect.
    ///   - suite: The crypto suite; `.default` is `AES_CM_128_HMAC_SHA1_80`.
    ///   - key: The master key and salt; must be `suite.keyAndSaltLength` bytes.
    ///   - ssrc: Which SSRCs the key applies to; `.any` by default.
    ///   - replayWindow: The replay window in packets, in `replayWindowRange`.
    ///   - allowRepeatTransmission: Whether an outbound session may protect the same sequence number again (a
    ///     retransmission of an identical packet); keep `false` unless retransmitting without RTX.
    /// - Throws: `SRTPError.keyLengthMismatch`, `SRTPError.invalidReplayWindow`, or `SRTPError.library` with the
    ///   status of `srtp_init` or `srtp_create`.
    public init(
        direction: Direction,
        suite: SRTPSuite = .default,
        key: SRTPMasterKey,
        ssrc: SSRCPolicy = .any,
        replayWindow: Int = SRTPSession.defaultReplayWindow,
        allowRepeatTransmission: Bool = false
    ) throws(SRTPError) {
        guard key.count == suite.keyAndSaltLength else {
            throw .keyLengthMismatch(suite: suite, expected: suite.keyAndSaltLength, actual: key.count)
        }
        guard Self.replayWindowRange.contains(replayWindow) else { throw .invalidReplayWindow(replayWindow) }
        try SRTPLibrary.initializeOnce()

        var policy = srtp_policy_t()
        suite.configure(rtp: &policy.rtp, rtcp: &policy.rtcp)
        switch ssrc {
        case .any:
            policy.ssrc.type = direction == .outbound ? ssrc_any_outbound : ssrc_any_inbound
            policy.ssrc.value = 0
        case .specific(let value):
            policy.ssrc.type = ssrc_specific
            policy.ssrc.value = value
        }
        policy.window_size = UInt(replayWindow)
        policy.allow_repeat_tx = allowRepeatTransmission ? 1 : 0
        policy.next = nil

        var created: srtp_t?
        let status = key.withUnsafeBytes { bytes in
            // libsrtp reads the key during srtp_create (deriving session keys) and keeps no pointer to it.
            policy.key = UnsafeMutablePointer(mutating: bytes.bindMemory(to: UInt8.self).baseAddress)
            defer { policy.key = nil }
            return srtp_create(&created, &policy)
        }
        try SRTPError.check(status)
        guard let created else { throw .library(.fail) }
        self.session = created
        self.suite = suite
        self.direction = direction
    }

    /// The version of the libsrtp library in use, such as `libsrtp2 2.5.0`. The corresponding C function is
    /// `srtp_get_version_string`.
    public static var libraryVersion: String { SRTPLibrary.versionString }

    deinit {
        // srtp_dealloc only fails on a NULL session, which cannot happen here.
        _ = srtp_dealloc(session)
    }
}
