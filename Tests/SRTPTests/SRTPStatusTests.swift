import Testing
@testable import SRTP

@Suite struct SRTPStatusTests {
    /// Every `srtp_err_status_t` value of libsrtp 2.5 (srtp2/srtp.h), written out.
    static let table: [(SRTPStatus, UInt32, String)] = [
        (.ok, 0, "srtp_err_status_ok"), (.fail, 1, "srtp_err_status_fail"),
        (.badParam, 2, "srtp_err_status_bad_param"), (.allocFail, 3, "srtp_err_status_alloc_fail"),
        (.deallocFail, 4, "srtp_err_status_dealloc_fail"), (.initFail, 5, "srtp_err_status_init_fail"),
        (.terminus, 6, "srtp_err_status_terminus"), (.authFail, 7, "srtp_err_status_auth_fail"),
        (.cipherFail, 8, "srtp_err_status_cipher_fail"), (.replayFail, 9, "srtp_err_status_replay_fail"),
        (.replayOld, 10, "srtp_err_status_replay_old"), (.algoFail, 11, "srtp_err_status_algo_fail"),
        (.noSuchOp, 12, "srtp_err_status_no_such_op"), (.noCtx, 13, "srtp_err_status_no_ctx"),
        (.cantCheck, 14, "srtp_err_status_cant_check"), (.keyExpired, 15, "srtp_err_status_key_expired"),
        (.socketErr, 16, "srtp_err_status_socket_err"), (.signalErr, 17, "srtp_err_status_signal_err"),
        (.nonceBad, 18, "srtp_err_status_nonce_bad"), (.readFail, 19, "srtp_err_status_read_fail"),
        (.writeFail, 20, "srtp_err_status_write_fail"), (.parseErr, 21, "srtp_err_status_parse_err"),
        (.encodeErr, 22, "srtp_err_status_encode_err"), (.semaphoreErr, 23, "srtp_err_status_semaphore_err"),
        (.pfkeyErr, 24, "srtp_err_status_pfkey_err"), (.badMKI, 25, "srtp_err_status_bad_mki"),
        (.packetIndexOld, 26, "srtp_err_status_pkt_idx_old"), (.packetIndexAdvanced, 27, "srtp_err_status_pkt_idx_adv"),
    ]

    @Test func everyStatusKeepsItsCodeAndCName() {
        #expect(Self.table.count == 28)
        for (status, raw, cName) in Self.table {
            #expect(status.rawValue == raw)
            #expect(status.cName == cName)
            #expect(status.description.hasSuffix("(\(cName) = \(raw))"))
        }
    }

    @Test func descriptionsReadWell() {
        #expect(SRTPError.library(.authFail).description == "SRTP authentication failed (srtp_err_status_auth_fail = 7)")
        #expect(SRTPStatus.replayOld.description
            == "SRTP replay check failed (packet older than the replay window) (srtp_err_status_replay_old = 10)")
        #expect(SRTPStatus(rawValue: 99).description == "SRTP failed with an unknown status (srtp_err_status_t = 99)")
        #expect(SRTPStatus(rawValue: 99).cName == nil)
        #expect(SRTPError.bufferTooSmall(required: 42, capacity: 41).description
            == "SRTP buffer too small: 42 bytes needed, capacity 41")
    }

    @Test func mappingKeepsTheRawStatus() throws {
        let sender = try SRTPSession(direction: .outbound, key: SRTPMasterKey.random(for: .default))
        var packet = [UInt8](repeating: 0x80, count: 32)
        do {
            _ = try sender.protectRTP(&packet, length: 4)
            Issue.record("a 4-byte RTP packet must be refused")
        } catch {
            guard case .library(let status) = error else {
                Issue.record("expected a library status, got \(error)")
                return
            }
            #expect(status.rawValue == 2)
        }
    }
}
