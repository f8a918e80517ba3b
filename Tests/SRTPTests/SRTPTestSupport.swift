@testable import SRTP

/// Helpers shared by the SRTP tests: packet builders and fixed keys (test keys only, never real ones).
enum SRTPTestSupport {
    /// A deterministic key for `suite`: bytes 0, 1, 2, ... offset by `seed`.
    static func key(for suite: SRTPSuite, seed: UInt8 = 0) throws -> SRTPMasterKey {
        try SRTPMasterKey(keyAndSalt: (0..<suite.keyAndSaltLength).map { UInt8(truncatingIfNeeded: $0) &+ seed },
                          for: suite)
    }

    /// An RTP packet (RFC 3550 section 5.1: V=2, PT 96, given sequence number, timestamp and SSRC) followed by
    /// `payloadLength` payload bytes derived from the sequence number, with `trailer` zero bytes of room after it.
    static func rtpPacket(sequence: UInt16, ssrc: UInt32 = 0x1234_5678, payloadLength: Int = 20,
                          trailer: Int = SRTPSuite.maxRTPTrailer) -> [UInt8] {
        let timestamp = UInt32(sequence) &* 3000
        var packet: [UInt8] = [0x80, 96, UInt8(sequence >> 8), UInt8(sequence & 0xff)]
        packet += bigEndian(timestamp) + bigEndian(ssrc)
        packet += (0..<payloadLength).map { UInt8(truncatingIfNeeded: Int(sequence) &+ $0) }
        return packet + [UInt8](repeating: 0, count: trailer)
    }

    /// An RTCP sender report header plus 20 bytes of sender info (RFC 3550 section 6.4.1), with trailer room.
    static func rtcpSenderReport(ssrc: UInt32 = 0x1234_5678, trailer: Int = SRTPSuite.maxRTCPTrailer) -> [UInt8] {
        var packet: [UInt8] = [0x80, 200, 0x00, 0x06] + bigEndian(ssrc)
        packet += (0..<20).map { UInt8($0) }
        return packet + [UInt8](repeating: 0, count: trailer)
    }

    static let rtcpSenderReportLength = 28

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xff), UInt8((value >> 8) & 0xff), UInt8(value & 0xff)]
    }
}
