/// A status code returned by libsrtp (`srtp_err_status_t`), kept raw so that no value is lost.
///
/// Every code libsrtp 2.x defines has a named constant, a C name and a readable summary. A value from a newer
/// libsrtp that this list does not know still round-trips through `rawValue`. The corresponding C type is
/// `srtp_err_status_t`.
public struct SRTPStatus: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The raw `srtp_err_status_t` value.
    public let rawValue: UInt32

    /// Wraps a raw `srtp_err_status_t` value.
    ///
    /// - Parameters:
    ///   - rawValue: The value returned by a libsrtp function.
    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// No error (`srtp_err_status_ok`).
    public static let ok = SRTPStatus(rawValue: 0)
    /// Unspecified failure (`srtp_err_status_fail`).
    public static let fail = SRTPStatus(rawValue: 1)
    /// Unsupported parameter (`srtp_err_status_bad_param`).
    public static let badParam = SRTPStatus(rawValue: 2)
    /// Memory allocation failed (`srtp_err_status_alloc_fail`).
    public static let allocFail = SRTPStatus(rawValue: 3)
    /// Deallocation failed (`srtp_err_status_dealloc_fail`).
    public static let deallocFail = SRTPStatus(rawValue: 4)
    /// Initialization failed (`srtp_err_status_init_fail`).
    public static let initFail = SRTPStatus(rawValue: 5)
    /// Cannot process as much data as requested (`srtp_err_status_terminus`).
    public static let terminus = SRTPStatus(rawValue: 6)
    /// Authentication failed: tampered packet or wrong key (`srtp_err_status_auth_fail`).
    public static let authFail = SRTPStatus(rawValue: 7)
    /// Cipher failure (`srtp_err_status_cipher_fail`).
    public static let cipherFail = SRTPStatus(rawValue: 8)
    /// Replay check failed: the packet index was already seen (`srtp_err_status_replay_fail`).
    public static let replayFail = SRTPStatus(rawValue: 9)
    /// Replay check failed: the packet index is older than the window (`srtp_err_status_replay_old`).
    public static let replayOld = SRTPStatus(rawValue: 10)
    /// An algorithm failed its self-test (`srtp_err_status_algo_fail`).
    public static let algoFail = SRTPStatus(rawValue: 11)
    /// Unsupported operation (`srtp_err_status_no_such_op`).
    public static let noSuchOp = SRTPStatus(rawValue: 12)
    /// No stream context matches the packet's SSRC (`srtp_err_status_no_ctx`).
    public static let noCtx = SRTPStatus(rawValue: 13)
    /// Unable to perform the desired validation (`srtp_err_status_cant_check`).
    public static let cantCheck = SRTPStatus(rawValue: 14)
    /// The key has reached its lifetime and cannot be used any more (`srtp_err_status_key_expired`).
    public static let keyExpired = SRTPStatus(rawValue: 15)
    /// Error using a socket (`srtp_err_status_socket_err`).
    public static let socketErr = SRTPStatus(rawValue: 16)
    /// Error using POSIX signals (`srtp_err_status_signal_err`).
    public static let signalErr = SRTPStatus(rawValue: 17)
    /// Nonce check failed (`srtp_err_status_nonce_bad`).
    public static let nonceBad = SRTPStatus(rawValue: 18)
    /// Could not read data (`srtp_err_status_read_fail`).
    public static let readFail = SRTPStatus(rawValue: 19)
    /// Could not write data (`srtp_err_status_write_fail`).
    public static let writeFail = SRTPStatus(rawValue: 20)
    /// Error parsing data, such as a malformed packet header (`srtp_err_status_parse_err`).
    public static let parseErr = SRTPStatus(rawValue: 21)
    /// Error encoding data (`srtp_err_status_encode_err`).
    public static let encodeErr = SRTPStatus(rawValue: 22)
    /// Error using semaphores (`srtp_err_status_semaphore_err`).
    public static let semaphoreErr = SRTPStatus(rawValue: 23)
    /// Error using PF_KEY (`srtp_err_status_pfkey_err`).
    public static let pfkeyErr = SRTPStatus(rawValue: 24)
    /// The MKI in the packet is not valid (`srtp_err_status_bad_mki`).
    public static let badMKI = SRTPStatus(rawValue: 25)
    /// The packet index is too old to be considered (`srtp_err_status_pkt_idx_old`).
    public static let packetIndexOld = SRTPStatus(rawValue: 26)
    /// The packet index advanced too far; the stream must be reset (`srtp_err_status_pkt_idx_adv`).
    public static let packetIndexAdvanced = SRTPStatus(rawValue: 27)

    /// Every status libsrtp 2.5 defines, in numeric order, with its C name and a readable summary.
    static let catalog: [(status: SRTPStatus, cName: String, summary: String)] = [
        (.ok, "srtp_err_status_ok", "SRTP succeeded"),
        (.fail, "srtp_err_status_fail", "SRTP failed (unspecified failure)"),
        (.badParam, "srtp_err_status_bad_param", "SRTP rejected an unsupported parameter"),
        (.allocFail, "srtp_err_status_alloc_fail", "SRTP could not allocate memory"),
        (.deallocFail, "srtp_err_status_dealloc_fail", "SRTP could not deallocate properly"),
        (.initFail, "srtp_err_status_init_fail", "SRTP initialization failed"),
        (.terminus, "srtp_err_status_terminus", "SRTP cannot process as much data as requested"),
        (.authFail, "srtp_err_status_auth_fail", "SRTP authentication failed"),
        (.cipherFail, "srtp_err_status_cipher_fail", "SRTP cipher failed"),
        (.replayFail, "srtp_err_status_replay_fail", "SRTP replay check failed (packet already received)"),
        (.replayOld, "srtp_err_status_replay_old", "SRTP replay check failed (packet older than the replay window)"),
        (.algoFail, "srtp_err_status_algo_fail", "SRTP algorithm failed its self-test"),
        (.noSuchOp, "srtp_err_status_no_such_op", "SRTP operation not supported"),
        (.noCtx, "srtp_err_status_no_ctx", "SRTP has no stream context for this SSRC"),
        (.cantCheck, "srtp_err_status_cant_check", "SRTP cannot perform the requested check"),
        (.keyExpired, "srtp_err_status_key_expired", "SRTP key expired"),
        (.socketErr, "srtp_err_status_socket_err", "SRTP socket error"),
        (.signalErr, "srtp_err_status_signal_err", "SRTP signal error"),
        (.nonceBad, "srtp_err_status_nonce_bad", "SRTP nonce check failed"),
        (.readFail, "srtp_err_status_read_fail", "SRTP could not read data"),
        (.writeFail, "srtp_err_status_write_fail", "SRTP could not write data"),
        (.parseErr, "srtp_err_status_parse_err", "SRTP could not parse the packet"),
        (.encodeErr, "srtp_err_status_encode_err", "SRTP could not encode data"),
        (.semaphoreErr, "srtp_err_status_semaphore_err", "SRTP semaphore error"),
        (.pfkeyErr, "srtp_err_status_pfkey_err", "SRTP PF_KEY error"),
        (.badMKI, "srtp_err_status_bad_mki", "SRTP packet carries an invalid MKI"),
        (.packetIndexOld, "srtp_err_status_pkt_idx_old", "SRTP packet index is too old"),
        (.packetIndexAdvanced, "srtp_err_status_pkt_idx_adv", "SRTP packet index advanced too far (stream reset needed)"),
    ]

    /// The name of the C enumerator, such as `srtp_err_status_auth_fail`, or `nil` for an unknown value.
    public var cName: String? {
        Int(rawValue) < Self.catalog.count ? Self.catalog[Int(rawValue)].cName : nil
    }

    /// A readable summary, such as "SRTP authentication failed (srtp_err_status_auth_fail = 7)".
    public var description: String {
        guard Int(rawValue) < Self.catalog.count else {
            return "SRTP failed with an unknown status (srtp_err_status_t = \(rawValue))"
        }
        let entry = Self.catalog[Int(rawValue)]
        return "\(entry.summary) (\(entry.cName) = \(rawValue))"
    }
}
