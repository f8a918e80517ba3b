import MediaTime
import Testing
@testable import RTP

/// RTCP captured from real peers on loopback (127.0.0.1 only), on Debian 12 with ffmpeg 5.1.9 and GStreamer 1.22.0,
/// saved byte for byte. Every datagram was received by this tiny listener, which prints each one as hex:
///
/// ```
/// # listen.py PORT SECONDS
/// import socket, sys, time
/// port = int(sys.argv[1]); dur = float(sys.argv[2])
/// s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", port)); s.settimeout(0.5)
/// end = time.time() + dur
/// while time.time() < end:
///     try: d, a = s.recvfrom(2048)
///     except socket.timeout: continue
///     print(d.hex(), flush=True)
/// ```
@Suite struct RTCPCapturedFixturesTests {
    func parse(_ bytes: [UInt8]) throws -> [RTCPPacket] {
        let packets = try RTCPPacket.parseCompound(bytes)
        // Everything we parse, we write back identically.
        #expect(try RTCPPacket.serialized(packets) == bytes)
        return packets
    }

    // MARK: ffmpeg (RTP sender): SR + SDES

    /// ffmpeg's first SR, sent with the first RTP packet (zero counts), captured with:
    /// ```
    /// python3 listen.py 5005 9 &
    /// ffmpeg -re -f lavfi -i testsrc=size=160x120:rate=10 -t 7 -c:v libx264 -ssrc 0x12345678 -cname ffmpeg-cap \
    ///   -f rtp "rtp://127.0.0.1:5004?rtcpport=5005"
    /// ```
    static let ffmpegFirstSR = hex("""
        80c8000612345678eeacd042fdf3b6457e481edb000000000000000081ca000512345678010a66666d7065672d63617000000000
        """)

    /// A later SR of the same kind of run (ffmpeg sends one about every 5 s once enough bytes were sent), captured
    /// with `python3 listen.py 5005 15 &` and the command above with `testsrc=size=640x480:rate=30 -t 12`.
    static let ffmpegLaterSR = hex("""
        80c8000612345678eeacd07f66e978d41df3ae3a0000009b000072b381ca000512345678010a66666d7065672d63617000000000
        """)

    @Test func ffmpegSenderReportAndCNAME() throws {
        let first = try parse(Self.ffmpegFirstSR)
        #expect(first.count == 2)
        guard case .senderReport(let sr) = first[0], case .sourceDescription(let sdes) = first[1] else {
            Issue.record("expected SR + SDES, got \(first)")
            return
        }
        #expect(sr.ssrc == SSRC(0x1234_5678))
        #expect(sr.ntpTimestamp == NTPTimestamp(seconds: 0xEEAC_D042, fraction: 0xFDF3_B645))
        #expect(sr.rtpTimestamp == RTPTimestamp(0x7E48_1EDB))
        #expect(sr.packetCount == 0 && sr.octetCount == 0 && sr.reportBlocks.isEmpty)
        #expect(sdes.chunks == [SourceDescriptionChunk(ssrc: SSRC(0x1234_5678), items: [.cname("ffmpeg-cap")])])

        let later = try parse(Self.ffmpegLaterSR)
        guard case .senderReport(let sr2) = later[0] else { Issue.record("expected SR"); return }
        #expect(sr2.packetCount == 155 && sr2.octetCount == 29363)
        #expect(sr2.rtpTimestamp == RTPTimestamp(0x1DF3_AE3A))
        #expect(sr2.ntpTimestamp.middle32 == 0xD07F_66E9)
    }

    // MARK: GStreamer rtpbin (RTP receiver): RR + SDES, PLI, NACK

    /// GStreamer rtpbin receiving H.264 from ffmpeg through a relay that drops every 40th RTP packet, with the default
    /// AVP profile (so RR + SDES only). Captured with:
    /// ```
    /// python3 listen.py 5009 16 &
    /// python3 relay.py 16 &   # 127.0.0.1:5010 -> 5006 dropping every 40th datagram; RTCP 5011 -> 5007
    /// gst-launch-1.0 -q rtpbin name=rb \
    ///   udpsrc address=127.0.0.1 port=5006 caps="application/x-rtp,media=video,clock-rate=90000,encoding-name=H264,payload=96" \
    ///   ! rb.recv_rtp_sink_0 rb. ! rtph264depay request-keyframe=true ! fakesink \
    ///   udpsrc address=127.0.0.1 port=5007 ! rb.recv_rtcp_sink_0 \
    ///   rb.send_rtcp_src_0 ! udpsink host=127.0.0.1 port=5009 sync=false async=false &
    /// ffmpeg -re -f lavfi -i testsrc=size=640x480:rate=30 -t 12 -c:v libx264 -g 300 -ssrc 0x12345678 -cname ffmpeg-cap \
    ///   -payload_type 96 -f rtp "rtp://127.0.0.1:5010?rtcpport=5011"
    /// ```
    static let gstreamerRR = hex("""
        81c90007af5b5646123456780200000100000c2c00001df3d05228f50002de0f\
        81ca000caf5b5646011c757365723139393232333835303140686f73742d616366346238643006094753747265616d6572000000
        """)

    /// The same setup with `rtpbin rtp-profile=avpf do-retransmission=true` and
    /// `rtcp-fb-nack-pli=(boolean)true,rtcp-fb-nack=(boolean)true` added to the udpsrc caps: GStreamer then sends
    /// PLI (after the depayloader's keyframe request) and generic NACKs, as compound and as early (RR without
    /// report blocks) packets. Four datagrams of that capture:
    static let gstreamerRRWithPLI = hex("""
        81c900077996d64a12345678000000000000037e00000b71d067b74b00004b15\
        81ca000c7996d64a011c757365723335393238373736373340686f73742d633030383961323806094753747265616d6572000000\
        81ce00027996d64a12345678
        """)
    static let gstreamerEarlyNACK = hex("""
        80c900017996d64a\
        81ca00097996d64a011c757365723335393238373736373340686f73742d63303038396132380000\
        81cd00037996d64a1234567803990000
        """)
    static let gstreamerEarlyPLIAndNACK = hex("""
        80c900017996d64a\
        81ca00097996d64a011c757365723335393238373736373340686f73742d63303038396132380000\
        81ce00027996d64a12345678\
        81cd00037996d64a1234567804d90000
        """)

    @Test func gstreamerReceiverReport() throws {
        let packets = try parse(Self.gstreamerRR)
        guard packets.count == 2, case .receiverReport(let rr) = packets[0], case .sourceDescription(let sdes) = packets[1]
        else {
            Issue.record("expected RR + SDES, got \(packets)")
            return
        }
        #expect(rr.ssrc == SSRC(0xAF5B_5646))
        #expect(rr.reportBlocks == [ReportBlock(
            ssrc: SSRC(0x1234_5678), fractionLost: 2, cumulativeLost: 1, extendedHighestSequenceNumber: 0x0C2C,
            jitter: 0x1DF3, lastSenderReport: 0xD052_28F5, delaySinceLastSenderReport: 0x0002_DE0F)])
        #expect(sdes.chunks.count == 1 && sdes.chunks[0].ssrc == SSRC(0xAF5B_5646))
        #expect(sdes.chunks[0].items.map(\.type) == [SourceDescriptionItem.cnameType, SourceDescriptionItem.toolType])
        #expect(sdes.chunks[0].items[0].text == "user1992238501@host-acf4b8d0")
        #expect(sdes.chunks[0].items[1].text == "GStreamer")
        // RTT as the sender would compute it: the RR arrived 1 s after the SR it reflects plus DLSR
        // (0x0002:DE0F = 2.867 s), so the RTT is 1 s.
        let arrival = NTPTimestamp(rawValue: UInt64(0xD052_28F5 &+ 0x0002_DE0F &+ 0x0001_0000) << 16)
        #expect(rr.reportBlocks[0].roundTripTime(arrival: arrival) == .seconds(1))
    }

    @Test func gstreamerPictureLossIndication() throws {
        let packets = try parse(Self.gstreamerRRWithPLI)
        #expect(packets.count == 3)
        #expect(packets.last == .pli(PictureLossIndication(senderSSRC: SSRC(0x7996_D64A), mediaSSRC: SSRC(0x1234_5678))))
        guard case .receiverReport(let rr) = packets[0] else { Issue.record("expected RR"); return }
        #expect(rr.reportBlocks.first?.extendedHighestSequenceNumber == 0x037E)
        #expect(rr.reportBlocks.first?.lastSenderReport == 0xD067_B74B)
    }

    @Test func gstreamerEarlyFeedback() throws {
        let nackOnly = try parse(Self.gstreamerEarlyNACK)
        #expect(nackOnly.first == .receiverReport(ReceiverReport(ssrc: SSRC(0x7996_D64A))))
        #expect(nackOnly.last == .nack(GenericNACK(
            senderSSRC: SSRC(0x7996_D64A), mediaSSRC: SSRC(0x1234_5678), pairs: [NACKPair(packetID: SequenceNumber(0x0399))])))
        guard case .sourceDescription(let sdes) = nackOnly[1] else { Issue.record("expected SDES"); return }
        #expect(sdes.chunks[0].items == [.cname("user3592877673@host-c0089a28")])

        let both = try parse(Self.gstreamerEarlyPLIAndNACK)
        #expect(both.count == 4)
        #expect(both[2] == .pli(PictureLossIndication(senderSSRC: SSRC(0x7996_D64A), mediaSSRC: SSRC(0x1234_5678))))
        guard case .nack(let nack) = both[3] else { Issue.record("expected NACK"); return }
        #expect(nack.lostSequenceNumbers == [SequenceNumber(0x04D9)])
    }
}
