import NIOCore
import RTP

extension H264Receiver {
    /// The report block about the sender's stream, with LSR/DLSR from its latest SR (RFC 3550 section 6.4.1).
    func makeReportBlock() -> ReportBlock? {
        var dlsr: UInt32 = 0
        if state.lastSenderReportMiddle != 0 {
            // Delay since the last SR, in 1/65536 s.
            dlsr = UInt32(truncatingIfNeeded: (Self.uptime() - state.lastSenderReportArrival) * 65_536 / 1_000_000_000)
        }
        let lsr = state.lastSenderReportMiddle
        return state.reception?.makeReportBlock(lastSenderReport: lsr, delaySinceLastSenderReport: dlsr)
    }

    /// Sends RR + SDES, with a PLI when asked (RFC 4585 section 6.3.1), protected with SRTCP.
    func sendFeedback(pli: Bool) {
        guard let destination = rtcpDestination else { return }
        var packets: [RTCPPacket] = [
            .receiverReport(ReceiverReport(ssrc: SSRC(ssrc), reportBlocks: makeReportBlock().map { [$0] } ?? [])),
            .sourceDescription(SourceDescription(chunks: [
                SourceDescriptionChunk(ssrc: SSRC(ssrc), items: [.cname(configuration.cname)]),
            ])),
        ]
        if pli, let senderSSRC = state.senderSSRC {
            packets.append(.pli(PictureLossIndication(senderSSRC: SSRC(ssrc), mediaSSRC: SSRC(senderSSRC))))
            state.lastPLIUptime = Self.uptime()
            state.stats.pliCount += 1
        }
        let trailer = configuration.security?.suite.rtcpTrailerLength ?? 0
        let size = RTCPPacket.serializedSize(of: packets) + trailer
        var out = rtpEndpoint.channel.allocator.buffer(capacity: size)
        let srtcp = state.srtcpOut
        do {
            try out.writeWithUnsafeMutableBytes(minimumWritableBytes: size) { raw in
                var length = try RTCPPacket.serialize(packets, into: raw, reservedTrailer: trailer)
                if let srtcp { length = try srtcp.protectRTCP(raw, length: length) }
                return length
            }
        } catch {
            return
        }
        let endpoint = rtcpEndpoint ?? rtpEndpoint
        endpoint.write(out, to: destination)
        endpoint.flush()
        state.stats.rtcpPacketsSent += 1
    }

    /// Where the sender listens for RTCP: its RTP address when muxed, its RTP port + 1 otherwise.
    var rtcpDestination: SocketAddress? {
        guard let address = state.senderAddress else { return nil }
        if configuration.rtcpMux { return address }
        guard let ip = address.ipAddress, let port = address.port else { return nil }
        return try? SocketAddress(ipAddress: ip, port: port + 1)
    }
}
