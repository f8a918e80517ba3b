import NIOCore
import RTP

extension H264Receiver {
    /// The report block about the sender's stream (RFC 3550 section 6.4.1 and appendix A.3).
    func makeReportBlock() -> ReportBlock? {
        guard let senderSSRC = state.senderSSRC, let base = state.baseSequence, let highest = state.sequence.highest else {
            return nil
        }
        let expected = highest - base + 1
        let lost = expected - Int64(state.received)
        let expectedInterval = expected - state.expectedPrior
        let receivedInterval = Int64(state.received - state.receivedPrior)
        state.expectedPrior = expected
        state.receivedPrior = state.received
        let lostInterval = expectedInterval - receivedInterval
        let fraction: UInt8 = expectedInterval <= 0 || lostInterval <= 0 ? 0 : UInt8(min(255, (lostInterval << 8) / expectedInterval))
        var dlsr: UInt32 = 0
        if state.lastSenderReportMiddle != 0 {
            // Delay since the last SR, in 1/65536 s.
            dlsr = UInt32(truncatingIfNeeded: (Self.uptime() - state.lastSenderReportArrival) * 65_536 / 1_000_000_000)
        }
        return ReportBlock(
            ssrc: SSRC(senderSSRC), fractionLost: fraction,
            cumulativeLost: Int32(clamping: max(-0x80_0000, min(0x7F_FFFF, lost))),
            extendedHighestSequenceNumber: state.sequence.reportValue, jitter: UInt32(state.jitterUnits),
            lastSenderReport: state.lastSenderReportMiddle, delaySinceLastSenderReport: dlsr)
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
