import Control
import Foundation
import RTP
import Sender
import Testing
import WebRTCTransport
@testable import WHEP

/// Real viewers of a WHEP server over loopback (our full ICE agent and DTLS client, libsrtp2, OpenH264): the fan-out
/// of one encoder, keyframes on join and on PLI, NACKs answered per viewer, the weakest viewer's REMB, and teardown.
@Suite(.serialized) struct WHEPViewerTests {
    @Test(.timeLimit(.minutes(1)))
    func twoViewersShareOneEncoderEachOnItsOwnStream() async throws {
        let (server, pump) = try await WHEPTestSupport.start(.init(host: "127.0.0.1", port: 0))
        defer { pump.cancel() }
        var events = server.events.makeAsyncIterator()

        let a = try await TestViewer(serverPort: server.localPort)
        #expect(try await WHEPTestSupport.waitFor { try await a.isConnected }, "viewer A did not connect")
        guard case .viewerJoined(let idA, _) = await events.next() else { Issue.record("no join event"); return }
        #expect(a.location == "/whep/\(idA)")
        #expect(try await WHEPTestSupport.waitFor { try await a.mediaPackets().count >= 20 })
        // The first packet a viewer gets starts a keyframe (SPS first), though the encoder ran before it joined.
        let firstA = try #require(try await a.mediaPackets().first)
        #expect(TestViewer.startsKeyframe(firstA))
        #expect(UInt32(firstA[8]) << 24 | UInt32(firstA[9]) << 16 | UInt32(firstA[10]) << 8 | UInt32(firstA[11]) == a.mediaSSRC)

        let b = try await TestViewer(serverPort: server.localPort)
        #expect(try await WHEPTestSupport.waitFor { try await b.isConnected }, "viewer B did not connect")
        #expect(try await WHEPTestSupport.waitFor { try await b.mediaPackets().count >= 20 })
        let firstB = try #require(try await b.mediaPackets().first)
        #expect(TestViewer.startsKeyframe(firstB))
        #expect(a.mediaSSRC != b.mediaSSRC)
        #expect(server.viewerCount == 2)
        // B's join asked the shared encoder for an IDR: A got it too.
        #expect(try await WHEPTestSupport.waitFor { try await a.keyframeCount() >= 2 })

        // A PLI from B reaches the one encoder: a new keyframe for both (after the 300 ms throttle window).
        let before = (try await a.keyframeCount(), try await b.keyframeCount())
        try await Task.sleep(for: .milliseconds(350))
        try await b.sendRTCP([.pli(PictureLossIndication(senderSSRC: SSRC(0x0bad_cafe), mediaSSRC: SSRC(b.mediaSSRC)))])
        #expect(try await WHEPTestSupport.waitFor(seconds: 10) {
            let (nowA, nowB) = (try await a.keyframeCount(), try await b.keyframeCount())
            return nowA > before.0 && nowB > before.1
        }, "no keyframe followed B's PLI")
        let statsB = try #require(await server.viewers().first { $0.sender.ssrc == b.mediaSSRC })
        #expect(statsB.sender.pliCount == 1)
        #expect(statsB.connected)

        // A NACK from A is answered on A's RTX stream with the packet it names, and B gets no retransmission.
        let rtxBeforeB = try await b.rtxPackets().count
        // The newest packet: still in the history (kept about a second) however slowly this machine ran so far.
        let lost = try #require(try await a.mediaPackets().last)
        let sequenceNumber = UInt16(lost[2]) << 8 | UInt16(lost[3])
        try await a.sendRTCP([.nack(GenericNACK(
            senderSSRC: SSRC(0x0bad_cafe), mediaSSRC: SSRC(a.mediaSSRC), lost: [SequenceNumber(sequenceNumber)]))])
        #expect(try await WHEPTestSupport.waitFor(seconds: 10) {
            try await a.rtxPackets().contains { $0.count > 14 && UInt16($0[12]) << 8 | UInt16($0[13]) == sequenceNumber }
        }, "the NACKed packet did not come back on A's RTX stream")
        try await Task.sleep(for: .milliseconds(200))
        #expect(try await b.rtxPackets().count == rtxBeforeB)

        // B's REMB limits the shared encoder (the weakest viewer), within the operator's 500 kbit/s.
        try await b.sendRTCP([.remb(ReceiverEstimatedMaximumBitrate(
            senderSSRC: SSRC(0x0bad_cafe), bitrate: 200_000, ssrcs: [SSRC(b.mediaSSRC)]))])
        #expect(await WHEPTestSupport.waitFor(seconds: 10) { server.appliedBitrate == 200_000 })
        try await a.sendRTCP([.remb(ReceiverEstimatedMaximumBitrate(
            senderSSRC: SSRC(0x0bad_cafe), bitrate: 5_000_000, ssrcs: [SSRC(a.mediaSSRC)]))])
        try await Task.sleep(for: .milliseconds(200))
        #expect(server.appliedBitrate == 200_000)

        // DELETE ends B: its RTCP BYE, then DTLS close_notify, arrive; the slot is free; the encoder follows A alone.
        let delete = try await WHEPTestSupport.request(port: server.localPort, "DELETE", b.location)
        #expect(delete.status == 200)
        #expect(server.viewerCount == 1)
        #expect(try await WHEPTestSupport.waitFor(seconds: 10) {
            try await b.read { seen in
                seen.rtcp.contains { if case .goodbye = $0 { true } else { false } }
                    && seen.events.contains(.closed(.closedByPeer))
            }
        }, "viewer B saw no BYE and close_notify")
        #expect(await WHEPTestSupport.waitFor(seconds: 10) { server.appliedBitrate == 500_000 })
        var left: WHEPEvent?
        while let event = await events.next() {
            if case .viewerLeft = event { left = event; break }
        }
        if case .viewerLeft(_, let reason) = left { #expect(reason == .deleted) } else { Issue.record("no leave event") }

        // A keeps receiving.
        let countA = try await a.mediaPackets().count
        #expect(try await WHEPTestSupport.waitFor(seconds: 10) { try await a.mediaPackets().count > countA + 10 })
        await server.finish()
        #expect(try await WHEPTestSupport.waitFor(seconds: 10) {
            try await a.read { seen in
                seen.rtcp.contains { if case .goodbye = $0 { true } else { false } }
                    && seen.events.contains(.closed(.closedByPeer))
            }
        }, "finish() did not end viewer A with a BYE and close_notify")
        await a.close()
        await b.close()
    }

    /// `serve --control`'s bitrate is the operator's ceiling: a viewer whose REMB allows far more does not lift the
    /// shared encoder above it, and raising it lets the encoder rise again. Keyframes reach the viewer; with no
    /// viewer, a keyframe request is refused with the reason.
    @Test(.timeLimit(.minutes(1)))
    func theOperatorsBitrateCapsTheEncoderAboveTheViewersEstimateAndRaisingItLetsItRise() async throws {
        let (server, pump) = try await WHEPTestSupport.start(.init(host: "127.0.0.1", port: 0))
        defer { pump.cancel() }
        let lonely = await ControlServer.apply(.requestKeyframe, to: server)
        #expect(lonely.status == 409)
        #expect(lonely.body.contains("no viewer is watching"))

        let viewer = try await TestViewer(serverPort: server.localPort)
        #expect(try await WHEPTestSupport.waitFor { try await viewer.isConnected }, "the viewer did not connect")
        #expect(try await WHEPTestSupport.waitFor { try await viewer.mediaPackets().count >= 20 })
        let remb = RTCPPacket.remb(ReceiverEstimatedMaximumBitrate(
            senderSSRC: SSRC(0x0bad_cafe), bitrate: 5_000_000, ssrcs: [SSRC(viewer.mediaSSRC)]))
        try await viewer.sendRTCP([remb])
        #expect(await WHEPTestSupport.waitFor { server.appliedBitrate == 500_000 })

        // Lowered through the control endpoint's command: the encoder follows at once, whatever the viewer estimates.
        let lowered = await ControlServer.apply(.setBitrate(300_000), to: server)
        #expect(lowered.status == 200, "\(lowered.body)")
        #expect(lowered.body.contains("\"targetBitrate\":300000"), "\(lowered.body)")
        #expect(server.operatorBitrate == 300_000)
        #expect(server.appliedBitrate == 300_000)
        try await viewer.sendRTCP([remb])
        try await Task.sleep(for: .milliseconds(300))
        #expect(server.appliedBitrate == 300_000)
        #expect(server.appliedMaxBitrate == 450_000)

        // Raised again: the encoder rises above the old ceiling, as far as the viewer's own estimate allows.
        let target = try await server.setBitrate(1_000_000)
        #expect(target > 300_000 && target <= 1_000_000, "target \(target)")
        #expect(await WHEPTestSupport.waitFor { server.appliedBitrate > 300_000 && server.appliedBitrate <= 1_000_000 })
        let viewerStats = try #require(await server.statistics().viewerStats.first)
        #expect(viewerStats.sender.operatorBitrate == 1_000_000)
        // `GET /metrics`: the server's viewer count, and the viewer's series under its id.
        let metrics = await ControlServer.apply(.metrics, to: server)
        #expect(metrics.status == 200)
        #expect(metrics.body.contains("rtc_h264_whep_viewers 1"), "\(metrics.body.prefix(400))")
        #expect(metrics.body.contains("rtc_h264_outbound_frames_sent_total{viewer=\"\(viewerStats.id)\"}"),
                "\(metrics.body.prefix(400))")

        // A keyframe for every viewer, on request.
        let before = try await viewer.keyframeCount()
        try await Task.sleep(for: .milliseconds(350))  // past the keyframe throttle's window of the join's IDR
        #expect(await ControlServer.apply(.requestKeyframe, to: server).status == 200)
        #expect(try await WHEPTestSupport.waitFor { try await viewer.keyframeCount() > before }, "no keyframe followed")

        // Out of range: refused, nothing changed.
        let refused = await ControlServer.apply(.setBitrate(900_000_000), to: server)
        #expect(refused.status == 400)
        #expect(refused.body.contains("above the limit"))
        #expect(server.operatorBitrate == 1_000_000)
        await viewer.close()
        await server.finish()
        #expect(await ControlServer.apply(.setBitrate(400_000), to: server).status == 409)
    }

    /// A viewer that offers transport-cc (as Chromium does) gets the extension in its answer and on every packet, in
    /// wire order: its own delay-based estimate then runs on its feedback.
    @Test(.timeLimit(.minutes(1)))
    func aViewerOfferingTransportCCGetsTransportWideSequenceNumbers() async throws {
        let (server, pump) = try await WHEPTestSupport.start(.init(host: "127.0.0.1", port: 0))
        defer { pump.cancel() }
        let viewer = try await TestViewer(serverPort: server.localPort, transportCC: true)
        #expect(viewer.answerSDP.contains("a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"))
        #expect(viewer.answerSDP.contains("transport-cc"))
        #expect(try await WHEPTestSupport.waitFor { try await viewer.mediaPackets().count >= 20 })
        let packets = try await viewer.mediaPackets()
        var previous: UInt16?
        for packet in packets.prefix(20) {
            // X bit, one-byte extension profile 0xBEDE, element id 3 carrying two bytes.
            #expect(packet[0] & 0x10 != 0)
            #expect(packet[12] == 0xBE && packet[13] == 0xDE)
            #expect(packet[16] == 0x31)
            let sequence = UInt16(packet[17]) << 8 | UInt16(packet[18])
            if let previous { #expect(sequence &- previous >= 1) }
            previous = sequence
        }
        await viewer.close()
        await server.finish()
    }

    @Test(.timeLimit(.minutes(1)))
    func aViewerWhoseDTLSCertificateDoesNotMatchItsFingerprintIsRefusedAndFreed() async throws {
        let (server, pump) = try await WHEPTestSupport.start(.init(host: "127.0.0.1", port: 0))
        defer { pump.cancel() }
        var events = server.events.makeAsyncIterator()
        // An offer with another certificate's fingerprint than the one the viewer's DTLS presents.
        let viewer = try await TestViewer(serverPort: server.localPort, offeredFingerprint: try DTLSTestCertificate.fingerprint())
        let event = await events.next()
        guard case .viewerLeft(_, .dtlsFailed(let why)) = event else {
            Issue.record("expected a DTLS failure, got \(String(describing: event))")
            return
        }
        #expect(why.contains("fingerprint"))
        #expect(server.viewerCount == 0)
        #expect(await WHEPTestSupport.waitFor(seconds: 10) { WHEPTestSupport.udpPortIsFree(viewer.serverPort) })
        #expect(try await viewer.mediaPackets().isEmpty)
        await viewer.close()
        await server.finish()
    }

    @Test(.timeLimit(.minutes(1)))
    func aViewerThatGoesSilentIsTornDownWhenConsentExpires() async throws {
        var options = WHEPServer.Options(host: "127.0.0.1", port: 0)
        options.consentTimeout = .seconds(2)
        let (server, pump) = try await WHEPTestSupport.start(options)
        defer { pump.cancel() }
        var events = server.events.makeAsyncIterator()
        let viewer = try await TestViewer(serverPort: server.localPort)
        #expect(try await WHEPTestSupport.waitFor { try await viewer.mediaPackets().count >= 5 })
        guard case .viewerJoined(let id, _) = await events.next() else { Issue.record("no join event"); return }
        #expect(!WHEPTestSupport.udpPortIsFree(viewer.serverPort))
        await viewer.vanish()
        let left = await events.next()
        #expect(left == .viewerLeft(id: id, reason: .consentExpired))
        #expect(server.viewerCount == 0)
        #expect(await WHEPTestSupport.waitFor(seconds: 10) { WHEPTestSupport.udpPortIsFree(viewer.serverPort) })
        await server.finish()
    }

    /// Issue 20, item 7: STUN that fails authentication, DTLS, RTP and PLIs from another address reach a viewer's
    /// socket; each is refused and counted in the viewer's `packetsFromStrangers` (it stayed 0), and the viewer
    /// keeps playing.
    @Test(.timeLimit(.minutes(1)))
    func datagramsFromStrangersAreCountedPerViewer() async throws {
        let (server, pump) = try await WHEPTestSupport.start(.init(host: "127.0.0.1", port: 0))
        defer { pump.cancel() }
        let viewer = try await TestViewer(serverPort: server.localPort)
        #expect(try await WHEPTestSupport.waitFor { try await viewer.mediaPackets().count >= 5 })
        let stun: [UInt8] = [0x00, 0x01, 0x00, 0x08, 0x21, 0x12, 0xA4, 0x42] + Array(repeating: 7, count: 12)
            + [0x00, 0x06, 0x00, 0x04, 0x61, 0x3A, 0x62, 0x63]  // USERNAME "a:bc", no MESSAGE-INTEGRITY
        let dtls: [UInt8] = [0x16, 0xFE, 0xFD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01, 0x01]
        let rtp: [UInt8] = [0x80, 0x60, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1] + Array(repeating: 0, count: 20)
        let pli: [UInt8] = [0x81, 0xCE, 0, 2, 0, 0, 0, 1] + withUnsafeBytes(of: viewer.mediaSSRC.bigEndian, Array.init)
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(viewer.serverPort).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        for datagram in [stun, dtls, rtp, pli] {
            for _ in 0..<10 {
                _ = datagram.withUnsafeBytes { bytes in
                    withUnsafePointer(to: &address) {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                            sendto(fd, bytes.baseAddress, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                        }
                    }
                }
            }
        }
        var counted = 0
        let all = await WHEPTestSupport.waitFor(seconds: 10) {
            counted = await server.viewers().first?.sender.packetsFromStrangers ?? 0
            return counted == 40
        }
        #expect(all, "packetsFromStrangers is \(counted), not 40")
        let before = try await viewer.mediaPackets().count
        #expect(try await WHEPTestSupport.waitFor { try await viewer.mediaPackets().count > before + 5 })
        await viewer.close()
        await server.finish()
    }

    /// Issue 22, item 4: a viewer over IPv6 loopback: the page and the offer over HTTP on `[::1]`, the answer's host
    /// candidate an IPv6 address, ICE, DTLS and SRTP media over IPv6.
    @Test(.timeLimit(.minutes(1)))
    func aViewerOverIPv6LoopbackPlays() async throws {
        let (server, pump) = try await WHEPTestSupport.start(.init(host: "::1", port: 0))
        defer { pump.cancel() }
        #expect(server.url == "http://[::1]:\(server.localPort)/")
        let page = try await WHEPTestSupport.request(host: "::1", port: server.localPort, "GET", "/")
        #expect(page.status == 200)
        let viewer = try await TestViewer(serverPort: server.localPort, host: "::1")
        #expect(viewer.answerSDP.contains(" ::1 \(viewer.serverPort) typ host"), "\(viewer.answerSDP)")
        #expect(viewer.answerSDP.contains("c=IN IP6 ::1"))
        #expect(try await WHEPTestSupport.waitFor { try await viewer.isConnected }, "the IPv6 viewer did not connect")
        #expect(try await WHEPTestSupport.waitFor { try await viewer.mediaPackets().count >= 10 })
        #expect(TestViewer.startsKeyframe(try #require(try await viewer.mediaPackets().first)))
        await viewer.close()
        await server.finish()
    }
}
