import H264
import Testing
@testable import RTP

/// RTP produced by a real H.264 sender (GStreamer 1.22 rtph264pay over openh264enc), depacketized by
/// `H264Depacketizer` and checked against the encoder's own Annex-B output, NAL unit by NAL unit.
///
/// Captured on loopback with the `listen.py` listener shown in `RTCPCapturedFixturesTests` (port 5030):
/// ```
/// python3 listen.py 5030 6 > gst_rtp.txt &
/// gst-launch-1.0 -q videotestsrc num-buffers=3 ! video/x-raw,width=64,height=64,framerate=30/1,format=I420 \
///   ! openh264enc gop-size=30 ! video/x-h264,stream-format=byte-stream ! tee name=t \
///   t. ! queue ! filesink location=gst.h264 \
///   t. ! queue ! rtph264pay mtu=200 pt=96 ssrc=0x0BADCAFE seqnum-offset=65533 timestamp-offset=0 config-interval=-1 \
///        aggregate-mode=zero-latency ! udpsink host=127.0.0.1 port=5030 sync=false
/// ```
/// `gst.h264` held five NAL units (SPS 13 B, PPS 4 B, IDR 816 B, two P slices of 222 and 229 B); their FNV-1a
/// hashes are below. rtph264pay sent SPS+PPS twice in one STAP-A (its config-interval insertion plus the encoder's
/// own), then FU-A fragments of up to 188 bytes, crossing the sequence number wrap.
@Suite struct H264GStreamerFixtureTests {
    static let packets: [[UInt8]] = [
        hex("""
            8060fffd000000000badcafe78000d6742d00b8c8d4212403c2211a8000468ce3c80000d6742d00b8c8d4212403c2211
            a8000468ce3c80
            """),
        hex("""
            8060fffe000000000badcafe7c85b80004000009ffc3ff0d450001048f01e420a99fc400010400001025880008d81c22
            11721c2211723f72bee7fffe1a81c4020e83e03cc4a99ddc40003c0002101100009000084dc38001700507dc1c00801a
            01c000b80283ee0e00400d00e0004806045c3c601c000900c08b878c3ffff0d628000802f80f21074ce20001f0001074
            88000208600021c51c000b0000804b03800801a0380016000100960700100340700038000203ac1c301c000e000080eb
            070c3ffff057f038
            """),
        hex("""
            8060ffff000000000badcafe7c058041d0710000413c00041f2200008200000830c38001700407dcc38001700407dcc3
            8001201c11730e0004807045cd39399caa594e561397fc3c7000b0ec0e000740004078007b2ee03c841d33e200008198
            00080b210008ab03800110385cb0e000440e172f064a59494bff80601b0ec00e009498041bbd06dabfe0035e626153c4
            34f57b720f058300008048011048000825e000102cc003c5b1aab09ed2488403a7c292903b0025098c228f208126542a
            7c569e60065e4142
            """),
        hex("""
            80600000000000000badcafe7c054dbc9f7fc38761dc0e04051ccbe0029069c7438b714f3d5ef8403c98200010090001
            0160402783910e9c57de866ed04f42a8490153ec164618de0b26778801adda09d0002276300100c753eff80e01061df4
            1801e40187430053a64a06dabff58400020120040419080004008102d7c11918c8e730417f25ffef0800020060a97810
            d10d0c428a728a10f934e5fc403fec344140009f81c000c0000809801483e2000080180b10000404c0004077926e4937
            30e00873ee438021
            """),
        hex("""
            80600001000000000badcafe7c05cfb90e1ffe0af01c000c00180c6d3384203001c00504200c0a0810080f0f1c080f08
            8400e1e39003870c03ff85a280305d1267282483e1800080000e001f038000809000166023572418d17b8007419c2fb8
            b82f73da015fde0140080ca610ad35acc6a63e004a01b613f9ea20ec9c1da34008906677386ce36ff6f058b002e9151b
            4cfed0be06811a26f084fc94e23f4fffed027d32c1c84218dcfff9cf2081a689f1e8cb5eefda1071364f54aea10b4c6b
            fce041cb2588c58d
            """),
        hex("""
            80e00002000000000badcafe7c45a2b1c5e1ff8010b07b8c2a2339e4523b419017c6e7dad57f5fadf7f7042b978857c9
            b90ed9b920040445157493a4c9fffffa80540b513307dcb4afbfb404df19551810f3f117e8
            """),
        hex("""
            8060000300000bb70badcafe7c81e0004000be409e2f8a2c6531529880592fdaa63e3df1f29844aa356267322d100010
            60ee34f156af2b47af2481ce0c8816b6da58a62112cb7ec0010f338514694907526f9c680085a920b13184e667bfed08
            ee1fa0e23089b50bfd00b8c2d17054ee8db7e30ed0c504f258e3f786d58fff9e000634b71a56602ad3563da00a00060d
            708c0a9ee89da3d1eed78000806b8a532193d799df781a03bee7892489c4d0cdf0012865c604ad38de744887dc81d0c3
            2d5928aad885d7fd
            """),
        hex("""
            80e0000400000bb70badcafe7c41e19c1abdc652311a741a0ef1002083d0a452c354ddebdef83638d4d6b05c39d921de
            be
            """),
        hex("""
            806000050000176f0badcafe7c81e00080013e4047840caecaf69127e88000d211e5123318ae4f7fb601ae0000d001c4
            3ad94bf51879c423ffffc030332d6861cd0e87b05ad0f0003680253cc9a1562eed69cf93140253fd22ce31cc24478000
            100804b78b210729564a67a6fffde00011466d8098f2c8137691b4b821042945baac2fba9491cffdc00008010305bc8c
            edc25795f4e8b2c000100a0cf0ca2398623147ff77e30381c86063d66bb3eb887ff78003e0154b8788657204ad0a21c0
            0080aacc5905129b
            """),
        hex("""
            80e000060000176f0badcafe7c4128193b380202c3c5c30aef15f9f352ffffe2031c9ca06b9c43dce3398701970209dc
            194e82d0c39507c0
            """),
    ]

    /// FNV-1a, 32 bits.
    func fnv1a(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        bytes.reduce(0x811C_9DC5) { ($0 ^ UInt32($1)) &* 0x0100_0193 }
    }

    @Test func depacketizesGStreamerOutputToTheEncoderBytes() throws {
        var d = H264Depacketizer()
        let events = Self.packets.flatMap { d.push($0) } + d.flush()
        let frames = events.compactMap { if case .frame(let f) = $0 { f } else { nil } }
        #expect(frames.count == 3 && events.count == 3)
        try #require(frames.count == 3)
        let key = frames[0].frame
        #expect(key.isKeyframe)
        #expect(key.nalUnits.map(\.type) == [.sps, .pps, .sps, .pps, .idrSlice])
        #expect(key.nalUnits.map(\.length) == [13, 4, 13, 4, 816])
        let hashes = key.nalUnits.indices.map { fnv1a(key.nalUnit($0)) }
        #expect(hashes == [0x13E7_8F51, 0x4707_383F, 0x13E7_8F51, 0x4707_383F, 0x7414_471C])
        #expect(frames[1].frame.nalUnits.map(\.length) == [222] && fnv1a(frames[1].frame.nalUnit(0)) == 0x701F_D336)
        #expect(frames[2].frame.nalUnits.map(\.length) == [229] && fnv1a(frames[2].frame.nalUnit(0)) == 0x848E_94F5)
        #expect(frames.map(\.rtpTimestamp.rawValue) == [0, 2999, 5999])
        #expect(frames.map(\.firstSequenceNumber) == [65533, 65539, 65541])
        #expect(frames.allSatisfy { $0.hadMarker && $0.ssrc == SSRC(0x0BAD_CAFE) })
    }

    @Test func ourPacketizerCarriesTheSameAccessUnitBackIntact() throws {
        var d = H264Depacketizer()
        let frames = Self.packets.flatMap { d.push($0) }.compactMap { if case .frame(let f) = $0 { f } else { nil } }
        var p = try packetizer(maxPayload: 188)
        var again = H264Depacketizer()
        for f in frames {
            let packets = try p.packetize(f.frame, timestamp: f.rtpTimestamp)
            let out = packets.flatMap { again.push($0) }.compactMap { if case .frame(let g) = $0 { g } else { nil } }
            #expect(out.first?.frame.bytes == f.frame.bytes)
        }
    }
}
