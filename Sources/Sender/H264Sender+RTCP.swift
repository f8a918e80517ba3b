import Codec
import NIOCore
import RTP
import SRTP

extension H264Sender {
    /// A datagram from the network, on either socket. On the event loop.
    ///
    /// Only the configured peer's address is accepted (by IP: peers often send RTCP from another port than their RTP
    /// port); everything else is counted and dropped, as is RTCP that fails SRTCP authentication or does not parse.
    func received(from address: SocketAddress, _ buffer: inout ByteBuffer) {
        guard address.ipAddress == peerRTP.ipAddress else {
            state.stats.packetsFromStrangers += 1
            return
        }
        guard let second = buffer.getInteger(at: buffer.readerIndex + 1, as: UInt8.self),
              RTCPPacket.multiplexedPacketTypes.contains(second)
        else {
            state.stats.rtcpMalformed += 1  // RTP or garbage sent to a send-only port
            return
        }
        let arrival = WallClock.ntpNow()
        let srtcp = state.srtcpIn
        let parsed: [RTCPPacket]? = buffer.withUnsafeMutableReadableBytes { raw -> [RTCPPacket]? in
            var length = raw.count
            if let srtcp {
                do {
                    length = try srtcp.unprotectRTCP(raw, length: length)
                } catch {
                    state.stats.srtcpUnprotectFailures += 1
                    return nil
                }
            }
            do {
                return try RTCPPacket.parseCompound(UnsafeRawBufferPointer(rebasing: raw[0..<length]))
            } catch {
                state.stats.rtcpMalformed += 1
                return nil
            }
        }
        guard let packets = parsed else { return }
        state.stats.rtcpPacketsReceived += 1
        for packet in packets {
            handle(packet, arrival: arrival)
        }
    }

    /// One RTCP packet from the peer: the feedback stages.
    func handle(_ packet: RTCPPacket, arrival: NTPTimestamp) {
        let ours = SSRC(ssrc)
        switch packet {
        case .pli(let pli) where pli.mediaSSRC == ours:
            state.stats.pliCount += 1
            requestKeyframe()
        case .fir(let fir):
            // RFC 5104 section 4.3.1: a FIR whose sequence number repeats the last one from that sender is a
            // retransmission of the same request and must not produce another keyframe.
            for entry in fir.entries where entry.ssrc == ours {
                let key = fir.senderSSRC.rawValue
                if state.lastFIRSequenceNumber[key] == entry.sequenceNumber { continue }
                state.lastFIRSequenceNumber[key] = entry.sequenceNumber
                state.stats.firCount += 1
                requestKeyframe()
            }
        case .remb(let remb) where remb.ssrcs.isEmpty || remb.ssrcs.contains(ours):
            var controller = state.bitrate
            controller.receivedREMB(Int(clamping: remb.bitrate))
            try? applyBitrate(controller)
        case .tmmbr(let tmmbr):
            for entry in tmmbr.entries where entry.ssrc == ours {
                var controller = state.bitrate
                controller.receivedTMMBR(Int(clamping: entry.bitrate))
                try? applyBitrate(controller)
                // RFC 5104 section 4.2.2: acknowledge with a TMMBN carrying the bounding set (here: this entry).
                sendRTCP([.tmmbn(TemporaryMaximumBitrateMessage(senderSSRC: ours, entries: [entry]))], withReport: true)
            }
        case .nack(let nack) where nack.mediaSSRC == ours:
            state.stats.nackCount += 1
        case .receiverReport(let rr):
            readReportBlocks(rr.reportBlocks, arrival: arrival)
        case .senderReport(let sr):
            readReportBlocks(sr.reportBlocks, arrival: arrival)
        default:
            break
        }
    }

    /// Records a keyframe request for the throttle, and when it arrived.
    func requestKeyframe() {
        if state.keyframeRequestUptime == nil { state.keyframeRequestUptime = Self.uptime() }
        state.throttle.request()
    }

    private func readReportBlocks(_ blocks: [ReportBlock], arrival: NTPTimestamp) {
        for block in blocks where block.ssrc == SSRC(ssrc) {
            if let rtt = block.roundTripTime(arrival: arrival) {
                state.stats.roundTripTime = rtt.inSeconds
            }
            state.stats.fractionLost = Double(block.fractionLost) / 256
            state.stats.packetsLost = Int(block.cumulativeLost)
        }
    }

    /// The Sender Report for now: NTP and RTP timestamps of the same instant, packet and octet counts.
    func makeSenderReport() -> RTCPPacket {
        let ntp = WallClock.ntpNow()
        let rtp: RTPTimestamp
        switch configuration.pacing {
        case .realTime where state.startUptime > 0:
            rtp = state.timestampMapper.timestamp(for: (Self.uptime() - state.startUptime) * 90_000 / 1_000_000_000)
        default:
            rtp = RTPTimestamp(state.lastRTPTimestamp)
        }
        return .senderReport(SenderReport(
            ssrc: SSRC(ssrc), ntpTimestamp: ntp, rtpTimestamp: rtp,
            packetCount: UInt32(truncatingIfNeeded: state.stats.packetsSent),
            octetCount: UInt32(truncatingIfNeeded: state.stats.bytesSent)))
    }

    /// Sends SR + SDES (CNAME), as a compound packet, once per report interval.
    func sendSenderReport() {
        sendRTCP([], withReport: true)
    }

    /// Sends SR + SDES + BYE on a graceful stop.
    func sendGoodbye() {
        sendRTCP([.goodbye(Goodbye(sources: [SSRC(ssrc)], reason: "stream ended"))], withReport: true)
    }

    /// Serializes a compound RTCP packet (SR and SDES first when `withReport`, as RFC 3550 section 6.1 requires),
    /// protects it with SRTCP in place and sends it to the peer's RTCP address.
    func sendRTCP(_ packets: [RTCPPacket], withReport: Bool) {
        var compound: [RTCPPacket] = []
        if withReport {
            compound.append(makeSenderReport())
            compound.append(.sourceDescription(SourceDescription(chunks: [
                SourceDescriptionChunk(ssrc: SSRC(ssrc), items: [.cname(configuration.cname)]),
            ])))
        }
        compound += packets
        let trailer = configuration.security?.suite.rtcpTrailerLength ?? 0
        var out = rtpEndpoint.channel.allocator.buffer(capacity: RTCPPacket.serializedSize(of: compound) + trailer)
        do {
            try out.writeWithUnsafeMutableBytes(minimumWritableBytes: RTCPPacket.serializedSize(of: compound) + trailer) { raw in
                var length = try RTCPPacket.serialize(compound, into: raw, reservedTrailer: trailer)
                if let srtp = state.sendPath.srtp {
                    length = try srtp.protectRTCP(raw, length: length)
                }
                return length
            }
        } catch {
            state.stats.sendErrors += 1
            return
        }
        let endpoint = rtcpEndpoint ?? rtpEndpoint
        endpoint.write(out, to: peerRTCP)
        endpoint.flush()
        state.stats.rtcpPacketsSent += 1
    }
}
