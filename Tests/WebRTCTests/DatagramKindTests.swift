import Testing
@testable import WebRTC

@Suite struct DatagramKindTests {
    /// Every first-byte value lands where RFC 7983 section 7 puts it.
    @Test func classifiesEveryFirstByte() {
        for byte in 0...255 {
            let kind = DatagramKind(firstByte: UInt8(byte), secondByte: 96)
            let expected: DatagramKind = switch byte {
            case 0...3: .stun
            case 16...19: .zrtp
            case 20...63: .dtls
            case 64...79: .turnChannel
            case 128...191: .rtp
            default: .unknown
            }
            #expect(kind == expected, "first byte \(byte)")
        }
    }

    /// RTCP packet types 192...223 (SR 200, RR 201, SDES 202, BYE 203, RTPFB 205, PSFB 206) versus RTP payload
    /// types, with and without the marker bit (RFC 5761 section 4).
    @Test func splitsRTPFromRTCP() {
        for packetType in [200, 201, 202, 203, 205, 206, 192, 223] {
            #expect(DatagramKind(classifying: [0x80, UInt8(packetType), 0, 1]) == .rtcp)
        }
        for payloadType in [96, 106, 127, 0, 35, 63] {
            #expect(DatagramKind(classifying: [0x80, UInt8(payloadType)]) == .rtp)
            #expect(DatagramKind(classifying: [0x80, UInt8(payloadType) | 0x80]) == .rtp)
        }
        #expect(DatagramKind(classifying: [0x80]) == .unknown)
        #expect(DatagramKind(classifying: [UInt8]()) == .unknown)
        #expect(DatagramKind(classifying: [0x00, 0x01]) == .stun)
        #expect(DatagramKind(classifying: [22, 0xfe, 0xfd]) == .dtls)
    }
}
