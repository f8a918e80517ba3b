import MediaTime
import RTP
import Testing
@testable import Sender

@Suite struct RTCPCompoundTests {
    @Test func senderCompoundRoundTrips() throws {
        let packets: [RTCPPacket] = [
            .senderReport(SenderReport(
                ssrc: SSRC(1234), ntpTimestamp: NTPTimestamp(seconds: 10, fraction: 20), rtpTimestamp: RTPTimestamp(30),
                packetCount: 40, octetCount: 50)),
            .sourceDescription(SourceDescription(chunks: [SourceDescriptionChunk(ssrc: SSRC(1234), items: [.cname("rtc-h264")])])),
            .goodbye(Goodbye(sources: [SSRC(1234)], reason: "stream ended")),
        ]
        let bytes = try RTCPPacket.serialized(packets)
        let parsed = try RTCPPacket.parseCompound(bytes)
        #expect(parsed == packets)
    }

    /// Regression: the SR+SDES+BYE our sender put on the wire (captured with tshark on loopback) must parse.
    @Test func capturedGoodbyeCompoundParses() throws {
        let bytes: [UInt8] = [0x80, 0xC8, 0x00, 0x06, 0x31, 0x44, 0xA1, 0x2D, 0xEE, 0xAC, 0xD3, 0x98, 0x86, 0x2F, 0x5B, 0xF8, 0xC7, 0x7A, 0x63, 0x15, 0x00, 0x00, 0x00, 0xC5, 0x00, 0x03, 0x17, 0xD1, 0x81, 0xCA, 0x00, 0x04, 0x31, 0x44, 0xA1, 0x2D, 0x01, 0x08, 0x72, 0x74, 0x63, 0x2D, 0x68, 0x32, 0x36, 0x34, 0x00, 0x00, 0x81, 0xCB, 0x00, 0x05, 0x31, 0x44, 0xA1, 0x2D, 0x0C, 0x73, 0x74, 0x72, 0x65, 0x61, 0x6D, 0x20, 0x65, 0x6E, 0x64, 0x65, 0x64, 0x00, 0x00, 0x00]
        let parsed = try RTCPPacket.parseCompound(bytes)
        #expect(parsed.count == 3)
    }
}
