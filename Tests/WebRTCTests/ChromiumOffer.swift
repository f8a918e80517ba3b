/// A WHEP offer as Chromium 120-era writes it for a `recvonly` audio + video viewer: audio first (so that video is
/// not the BUNDLE tag), host and mDNS candidates, a session without ice-lite, and the H.264 formats Chromium offers
/// (42001f, 42e01f, 4d001f, f4001f, each in packetization modes 1 and 0, each with RTX), between VP8, VP9 and AV1.
enum ChromiumOffer {
    static let fingerprint =
        "sha-256 4A:AD:B9:B1:3F:82:18:3B:54:02:12:DF:3E:5D:49:6B:19:E5:7C:AB:3C:A5:87:1A:93:4A:9C:4F:EE:5E:2D:2C"

    static let sdp = """
        v=0\r
        o=- 4215775240449105457 2 IN IP4 127.0.0.1\r
        s=-\r
        t=0 0\r
        a=group:BUNDLE 0 1\r
        a=extmap-allow-mixed\r
        a=msid-semantic: WMS\r
        m=audio 9 UDP/TLS/RTP/SAVPF 111 63 9 0 8 13 110 126\r
        c=IN IP4 0.0.0.0\r
        a=rtcp:9 IN IP4 0.0.0.0\r
        a=ice-ufrag:EsAw\r
        a=ice-pwd:bP+XJMM09aR8AiX1jdukzR6Y\r
        a=ice-options:trickle\r
        a=fingerprint:\(fingerprint)\r
        a=setup:actpass\r
        a=mid:0\r
        a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level\r
        a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time\r
        a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01\r
        a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid\r
        a=recvonly\r
        a=rtcp-mux\r
        a=rtpmap:111 opus/48000/2\r
        a=rtcp-fb:111 transport-cc\r
        a=fmtp:111 minptime=10;useinbandfec=1\r
        a=rtpmap:63 red/48000/2\r
        a=fmtp:63 111/111\r
        a=rtpmap:9 G722/8000\r
        a=rtpmap:0 PCMU/8000\r
        a=rtpmap:8 PCMA/8000\r
        a=rtpmap:13 CN/8000\r
        a=rtpmap:110 telephone-event/48000\r
        a=rtpmap:126 telephone-event/8000\r
        m=video 9 UDP/TLS/RTP/SAVPF 96 97 102 103 104 105 106 107 108 109 127 125 39 40 45 46 98 99 100 101 123 122 116 117 118\r
        c=IN IP4 0.0.0.0\r
        a=rtcp:9 IN IP4 0.0.0.0\r
        a=candidate:1467250027 1 udp 2122260223 192.168.1.23 51623 typ host generation 0 network-id 1\r
        a=candidate:3226582135 1 udp 2122194687 6ad7b9c3-7c29-4f68-8a3e-0bf8e3e3b6c1.local 60120 typ host generation 0 network-id 2 network-cost 50\r
        a=candidate:842163049 1 udp 1686052607 203.0.113.5 51623 typ srflx raddr 192.168.1.23 rport 51623 generation 0 network-id 1\r
        a=ice-ufrag:EsAw\r
        a=ice-pwd:bP+XJMM09aR8AiX1jdukzR6Y\r
        a=ice-options:trickle\r
        a=fingerprint:\(fingerprint)\r
        a=setup:actpass\r
        a=mid:1\r
        a=extmap:14 urn:ietf:params:rtp-hdrext:toffset\r
        a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time\r
        a=extmap:13 urn:3gpp:video-orientation\r
        a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01\r
        a=extmap:5 http://www.webrtc.org/experiments/rtp-hdrext/playout-delay\r
        a=extmap:6 http://www.webrtc.org/experiments/rtp-hdrext/video-content-type\r
        a=extmap:7 http://www.webrtc.org/experiments/rtp-hdrext/video-timing\r
        a=extmap:8 http://www.webrtc.org/experiments/rtp-hdrext/color-space\r
        a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid\r
        a=extmap:10 urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id\r
        a=extmap:11 urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id\r
        a=recvonly\r
        a=rtcp-mux\r
        a=rtcp-rsize\r
        a=rtpmap:96 VP8/90000\r
        a=rtcp-fb:96 goog-remb\r
        a=rtcp-fb:96 transport-cc\r
        a=rtcp-fb:96 ccm fir\r
        a=rtcp-fb:96 nack\r
        a=rtcp-fb:96 nack pli\r
        a=rtpmap:97 rtx/90000\r
        a=fmtp:97 apt=96\r
        a=rtpmap:102 H264/90000\r
        a=rtcp-fb:102 goog-remb\r
        a=rtcp-fb:102 transport-cc\r
        a=rtcp-fb:102 ccm fir\r
        a=rtcp-fb:102 nack\r
        a=rtcp-fb:102 nack pli\r
        a=fmtp:102 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42001f\r
        a=rtpmap:103 rtx/90000\r
        a=fmtp:103 apt=102\r
        a=rtpmap:104 H264/90000\r
        a=rtcp-fb:104 goog-remb\r
        a=rtcp-fb:104 transport-cc\r
        a=rtcp-fb:104 ccm fir\r
        a=rtcp-fb:104 nack\r
        a=rtcp-fb:104 nack pli\r
        a=fmtp:104 level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=42001f\r
        a=rtpmap:105 rtx/90000\r
        a=fmtp:105 apt=104\r
        a=rtpmap:106 H264/90000\r
        a=rtcp-fb:106 goog-remb\r
        a=rtcp-fb:106 transport-cc\r
        a=rtcp-fb:106 ccm fir\r
        a=rtcp-fb:106 nack\r
        a=rtcp-fb:106 nack pli\r
        a=fmtp:106 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f\r
        a=rtpmap:107 rtx/90000\r
        a=fmtp:107 apt=106\r
        a=rtpmap:108 H264/90000\r
        a=rtcp-fb:108 goog-remb\r
        a=rtcp-fb:108 transport-cc\r
        a=rtcp-fb:108 ccm fir\r
        a=rtcp-fb:108 nack\r
        a=rtcp-fb:108 nack pli\r
        a=fmtp:108 level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=42e01f\r
        a=rtpmap:109 rtx/90000\r
        a=fmtp:109 apt=108\r
        a=rtpmap:127 H264/90000\r
        a=rtcp-fb:127 goog-remb\r
        a=rtcp-fb:127 transport-cc\r
        a=rtcp-fb:127 ccm fir\r
        a=rtcp-fb:127 nack\r
        a=rtcp-fb:127 nack pli\r
        a=fmtp:127 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=4d001f\r
        a=rtpmap:125 rtx/90000\r
        a=fmtp:125 apt=127\r
        a=rtpmap:39 H264/90000\r
        a=rtcp-fb:39 goog-remb\r
        a=rtcp-fb:39 transport-cc\r
        a=rtcp-fb:39 ccm fir\r
        a=rtcp-fb:39 nack\r
        a=rtcp-fb:39 nack pli\r
        a=fmtp:39 level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=4d001f\r
        a=rtpmap:40 rtx/90000\r
        a=fmtp:40 apt=39\r
        a=rtpmap:45 AV1/90000\r
        a=rtcp-fb:45 goog-remb\r
        a=rtcp-fb:45 transport-cc\r
        a=rtcp-fb:45 ccm fir\r
        a=rtcp-fb:45 nack\r
        a=rtcp-fb:45 nack pli\r
        a=fmtp:45 level-idx=5;profile=0;tier=0\r
        a=rtpmap:46 rtx/90000\r
        a=fmtp:46 apt=45\r
        a=rtpmap:98 VP9/90000\r
        a=rtcp-fb:98 goog-remb\r
        a=rtcp-fb:98 transport-cc\r
        a=rtcp-fb:98 ccm fir\r
        a=rtcp-fb:98 nack\r
        a=rtcp-fb:98 nack pli\r
        a=fmtp:98 profile-id=0\r
        a=rtpmap:99 rtx/90000\r
        a=fmtp:99 apt=98\r
        a=rtpmap:100 VP9/90000\r
        a=rtcp-fb:100 goog-remb\r
        a=rtcp-fb:100 transport-cc\r
        a=rtcp-fb:100 ccm fir\r
        a=rtcp-fb:100 nack\r
        a=rtcp-fb:100 nack pli\r
        a=fmtp:100 profile-id=2\r
        a=rtpmap:101 rtx/90000\r
        a=fmtp:101 apt=100\r
        a=rtpmap:123 H264/90000\r
        a=rtcp-fb:123 goog-remb\r
        a=rtcp-fb:123 transport-cc\r
        a=rtcp-fb:123 ccm fir\r
        a=rtcp-fb:123 nack\r
        a=rtcp-fb:123 nack pli\r
        a=fmtp:123 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=f4001f\r
        a=rtpmap:122 rtx/90000\r
        a=fmtp:122 apt=123\r
        a=rtpmap:116 red/90000\r
        a=rtpmap:117 rtx/90000\r
        a=fmtp:117 apt=116\r
        a=rtpmap:118 ulpfec/90000\r

        """
}
