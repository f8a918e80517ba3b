import Testing
@testable import SRTP

@Suite struct SRTPSessionTests {
    typealias Support = SRTPTestSupport

    @Test(arguments: SRTPSuite.allCases)
    func rtpRoundTrip(_ suite: SRTPSuite) throws {
        let key = SRTPMasterKey.random(for: suite)
        let sender = try SRTPSession(direction: .outbound, suite: suite, key: key)
        let receiver = try SRTPSession(direction: .inbound, suite: suite, key: key)
        let plaintext = Support.rtpPacket(sequence: 7, payloadLength: 100, trailer: 0)
        var packet = Support.rtpPacket(sequence: 7, payloadLength: 100, trailer: suite.rtpTrailerLength)

        let srtpLength = try sender.protectRTP(&packet, length: plaintext.count)
        #expect(srtpLength == plaintext.count + suite.rtpTrailerLength)
        #expect(Array(packet[..<12]) == Array(plaintext[..<12]), "the RTP header stays in clear")
        #expect(Array(packet[12..<plaintext.count]) != Array(plaintext[12...]), "the payload is encrypted")

        let rtpLength = try receiver.unprotectRTP(&packet, length: srtpLength)
        #expect(rtpLength == plaintext.count)
        #expect(Array(packet[..<rtpLength]) == plaintext)
    }

    @Test(arguments: SRTPSuite.allCases)
    func rtcpRoundTrip(_ suite: SRTPSuite) throws {
        let key = SRTPMasterKey.random(for: suite)
        let sender = try SRTPSession(direction: .outbound, suite: suite, key: key)
        let receiver = try SRTPSession(direction: .inbound, suite: suite, key: key)
        let plaintext = Array(Support.rtcpSenderReport(trailer: 0))
        var packet = Support.rtcpSenderReport(trailer: suite.rtcpTrailerLength)

        let srtcpLength = try sender.protectRTCP(&packet, length: plaintext.count)
        #expect(srtcpLength == plaintext.count + suite.rtcpTrailerLength)
        #expect(Array(packet[8..<plaintext.count]) != Array(plaintext[8...]), "the RTCP body is encrypted")

        let rtcpLength = try receiver.unprotectRTCP(&packet, length: srtcpLength)
        #expect(rtcpLength == plaintext.count)
        #expect(Array(packet[..<rtcpLength]) == plaintext)
    }

    @Test(arguments: SRTPSuite.allCases)
    func tamperedPacketFailsAuthentication(_ suite: SRTPSuite) throws {
        let key = SRTPMasterKey.random(for: suite)
        let sender = try SRTPSession(direction: .outbound, suite: suite, key: key)
        let receiver = try SRTPSession(direction: .inbound, suite: suite, key: key)

        var rtp = Support.rtpPacket(sequence: 1)
        let srtpLength = try sender.protectRTP(&rtp, length: rtp.count - SRTPSuite.maxRTPTrailer)
        rtp[15] ^= 0x01
        #expect(throws: SRTPError.library(.authFail)) { try receiver.unprotectRTP(&rtp, length: srtpLength) }

        var rtcp = Support.rtcpSenderReport()
        let srtcpLength = try sender.protectRTCP(&rtcp, length: Support.rtcpSenderReportLength)
        rtcp[10] ^= 0x80
        #expect(throws: SRTPError.library(.authFail)) { try receiver.unprotectRTCP(&rtcp, length: srtcpLength) }
    }

    @Test(arguments: SRTPSuite.allCases)
    func replayedPacketIsRejected(_ suite: SRTPSuite) throws {
        let key = SRTPMasterKey.random(for: suite)
        let sender = try SRTPSession(direction: .outbound, suite: suite, key: key)
        let receiver = try SRTPSession(direction: .inbound, suite: suite, key: key)

        var rtp = Support.rtpPacket(sequence: 1000)
        let srtpLength = try sender.protectRTP(&rtp, length: rtp.count - SRTPSuite.maxRTPTrailer)
        let capturedRTP = rtp
        _ = try receiver.unprotectRTP(&rtp, length: srtpLength)
        rtp = capturedRTP
        #expect(throws: SRTPError.library(.replayFail)) { try receiver.unprotectRTP(&rtp, length: srtpLength) }

        var rtcp = Support.rtcpSenderReport()
        let srtcpLength = try sender.protectRTCP(&rtcp, length: Support.rtcpSenderReportLength)
        let capturedRTCP = rtcp
        _ = try receiver.unprotectRTCP(&rtcp, length: srtcpLength)
        rtcp = capturedRTCP
        #expect(throws: SRTPError.library(.replayFail)) { try receiver.unprotectRTCP(&rtcp, length: srtcpLength) }
    }

    /// A packet older than the replay window is rejected as `replay_old`, not merely as a duplicate.
    @Test func packetOlderThanWindowIsRejected() throws {
        let key = SRTPMasterKey.random(for: .default)
        let sender = try SRTPSession(direction: .outbound, key: key)
        let receiver = try SRTPSession(direction: .inbound, key: key, replayWindow: 64)
        var old = Support.rtpPacket(sequence: 10)
        let oldLength = try sender.protectRTP(&old, length: old.count - SRTPSuite.maxRTPTrailer)
        var new = Support.rtpPacket(sequence: 200)
        let newLength = try sender.protectRTP(&new, length: new.count - SRTPSuite.maxRTPTrailer)
        _ = try receiver.unprotectRTP(&new, length: newLength)
        #expect(throws: SRTPError.library(.replayOld)) { try receiver.unprotectRTP(&old, length: oldLength) }
    }

    @Test(arguments: SRTPSuite.allCases)
    func wrongKeyFailsAuthentication(_ suite: SRTPSuite) throws {
        let sender = try SRTPSession(direction: .outbound, suite: suite, key: Support.key(for: suite, seed: 1))
        let receiver = try SRTPSession(direction: .inbound, suite: suite, key: Support.key(for: suite, seed: 2))

        var rtp = Support.rtpPacket(sequence: 1)
        let srtpLength = try sender.protectRTP(&rtp, length: rtp.count - SRTPSuite.maxRTPTrailer)
        #expect(throws: SRTPError.library(.authFail)) { try receiver.unprotectRTP(&rtp, length: srtpLength) }

        var rtcp = Support.rtcpSenderReport()
        let srtcpLength = try sender.protectRTCP(&rtcp, length: Support.rtcpSenderReportLength)
        #expect(throws: SRTPError.library(.authFail)) { try receiver.unprotectRTCP(&rtcp, length: srtcpLength) }
    }

    /// 70,000 packets starting at sequence 65,000 cross the 16-bit wrap twice (ROC 0 -> 1 -> 2). A second session
    /// must decrypt every one, and the same sequence number and plaintext under ROC 1 and ROC 2 must encrypt
    /// differently (the ROC is part of the packet index, RFC 3711 section 3.3.1).
    @Test func rolloverAcrossSequenceWrap() throws {
        let suite = SRTPSuite.default
        let key = SRTPMasterKey.random(for: suite)
        let sender = try SRTPSession(direction: .outbound, suite: suite, key: key)
        let receiver = try SRTPSession(direction: .inbound, suite: suite, key: key)
        let packetCount = 70_000
        let firstSequence = 65_000
        let payloadLength = 8
        let headerLength = 12
        let rtpLength = headerLength + payloadLength
        // Ciphertexts of sequence numbers 0 ..< 100 seen under ROC 1, compared with ROC 2.
        var firstCycle: [[UInt8]] = []
        var secondCycleMatches = 0
        var packet = [UInt8](repeating: 0, count: rtpLength + SRTPSuite.maxRTPTrailer)
        var failures = 0

        for index in 0..<packetCount {
            let sequence = UInt16(truncatingIfNeeded: firstSequence + index)
            let plaintext = Support.rtpPacket(sequence: sequence, payloadLength: payloadLength, trailer: 0)
            packet.replaceSubrange(0..<rtpLength, with: plaintext)
            let srtpLength = try sender.protectRTP(&packet, length: rtpLength)
            let roc = (firstSequence + index) >> 16
            if sequence < 100, roc == 1 { firstCycle.append(Array(packet[headerLength..<srtpLength])) }
            if sequence < 100, roc == 2 {
                if firstCycle[Int(sequence)] == Array(packet[headerLength..<srtpLength]) { secondCycleMatches += 1 }
            }
            let decryptedLength = try receiver.unprotectRTP(&packet, length: srtpLength)
            if decryptedLength != rtpLength || Array(packet[..<rtpLength]) != plaintext { failures += 1 }
        }
        #expect(failures == 0)
        #expect(firstCycle.count == 100)
        #expect(secondCycleMatches == 0, "the rollover counter must change the keystream")
        #expect(firstSequence + packetCount > 2 * 65_536, "the stream must cross the wrap twice")
    }

    // MARK: Bad buffers and parameters

    @Test func protectNeedsRoomForTrailer() throws {
        let sender = try SRTPSession(direction: .outbound, key: SRTPMasterKey.random(for: .default))
        var packet = Support.rtpPacket(sequence: 1, trailer: 9)
        #expect(throws: SRTPError.bufferTooSmall(required: 42, capacity: 41)) {
            try sender.protectRTP(&packet, length: 32)
        }
        var rtcp = Support.rtcpSenderReport(trailer: 13)
        #expect(throws: SRTPError.bufferTooSmall(required: 42, capacity: 41)) {
            try sender.protectRTCP(&rtcp, length: 28)
        }
    }

    @Test func invalidLengthsAreRejected() throws {
        let sender = try SRTPSession(direction: .outbound, key: SRTPMasterKey.random(for: .default))
        var packet = Support.rtpPacket(sequence: 1)
        #expect(throws: SRTPError.invalidPacketLength(-1)) { try sender.protectRTP(&packet, length: -1) }
        #expect(throws: SRTPError.invalidPacketLength(49)) { try sender.unprotectRTP(&packet, length: 49) }
        #expect(throws: SRTPError.invalidPacketLength(49)) { try sender.protectRTCP(&packet, length: 49) }
    }

    /// libsrtp refuses an RTP packet shorter than the fixed header; the status comes through unchanged.
    @Test func truncatedHeaderIsReportedByLibsrtp() throws {
        let sender = try SRTPSession(direction: .outbound, key: SRTPMasterKey.random(for: .default))
        var packet = [UInt8](repeating: 0x80, count: 32)
        #expect(throws: SRTPError.library(.badParam)) { try sender.protectRTP(&packet, length: 8) }
    }

    @Test func sessionRejectsBadParameters() throws {
        let shortKey = SRTPMasterKey.random(for: .aeadAES128GCM)
        #expect(throws: SRTPError.keyLengthMismatch(suite: .aesCM128HMACSHA1_80, expected: 30, actual: 28)) {
            try SRTPSession(direction: .outbound, suite: .aesCM128HMACSHA1_80, key: shortKey)
        }
        let key = SRTPMasterKey.random(for: .default)
        #expect(throws: SRTPError.invalidReplayWindow(63)) {
            try SRTPSession(direction: .inbound, key: key, replayWindow: 63)
        }
        #expect(throws: SRTPError.invalidReplayWindow(32768)) {
            try SRTPSession(direction: .inbound, key: key, replayWindow: 32768)
        }
    }

    /// A session for one SSRC has no context for another: libsrtp's `no_ctx` status reaches the caller.
    @Test func specificSSRCRejectsOtherStreams() throws {
        let key = SRTPMasterKey.random(for: .default)
        let sender = try SRTPSession(direction: .outbound, key: key, ssrc: .specific(0x1234_5678))
        var mine = Support.rtpPacket(sequence: 1, ssrc: 0x1234_5678)
        #expect(try sender.protectRTP(&mine, length: mine.count - SRTPSuite.maxRTPTrailer) == 42)
        var other = Support.rtpPacket(sequence: 1, ssrc: 0x0bad_cafe)
        #expect(throws: SRTPError.library(.noCtx)) {
            try sender.protectRTP(&other, length: other.count - SRTPSuite.maxRTPTrailer)
        }
    }

    /// Protecting the same sequence number twice fails unless repeat transmission was allowed.
    @Test func repeatTransmissionPolicy() throws {
        let key = SRTPMasterKey.random(for: .default)
        let strict = try SRTPSession(direction: .outbound, key: key)
        let lenient = try SRTPSession(direction: .outbound, key: key, allowRepeatTransmission: true)
        for session in [strict, lenient] {
            var first = Support.rtpPacket(sequence: 5)
            _ = try session.protectRTP(&first, length: first.count - SRTPSuite.maxRTPTrailer)
        }
        var again = Support.rtpPacket(sequence: 5)
        #expect(throws: SRTPError.library(.replayFail)) {
            try strict.protectRTP(&again, length: again.count - SRTPSuite.maxRTPTrailer)
        }
        again = Support.rtpPacket(sequence: 5)
        #expect(try lenient.protectRTP(&again, length: again.count - SRTPSuite.maxRTPTrailer) == 42)
    }

    /// Sessions created concurrently from many tasks all succeed: `srtp_init` runs once, behind `swift_once`.
    @Test func libraryInitializesOnceAcrossConcurrentSessions() async throws {
        let created = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<16 {
                group.addTask {
                    (try? SRTPSession(direction: .outbound, key: SRTPMasterKey.random(for: .default))) != nil
                }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(created == 16)
        #expect(SRTPSession.libraryVersion.hasPrefix("libsrtp2 2."))
    }
}
