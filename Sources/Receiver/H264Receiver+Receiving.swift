import Codec
import H264
import NIOCore
import RTP
import SRTP
import Video

extension H264Receiver {
    static func uptime() -> Int64 { Int64(NIODeadline.now().uptimeNanoseconds) }

    func start() {
        guard !state.running, !state.finished else { return }
        state.running = true
        state.startUptime = Self.uptime()
        let interval = TimeAmount.nanoseconds(configuration.reportInterval)
        state.reportTask = eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { [weak self] _ in
            self?.tick()
        }
    }

    func finish() {
        guard !state.finished else { return }
        state.finished = true
        state.running = false
        state.reportTask?.cancel()
        for event in state.depacketizer.flush() { handle(event) }
        // The picture OpenH264 still holds (High profile) comes out at the end of the stream.
        while !state.awaitingPicture.isEmpty, (try? state.decoder.flush(into: &state.picture)) == true {
            deliverPicture()
        }
        let final = snapshot()
        rtpEndpoint.channel.close(promise: nil)
        rtcpEndpoint?.channel.close(promise: nil)
        finished.succeed(final)
    }

    func snapshot() -> ReceiverStats {
        var stats = state.stats
        stats.timestamp = Double(Self.uptime() - state.startUptime) / 1e9
        stats.jitter = Double(state.reception?.jitter ?? 0) / 90_000
        return stats
    }

    /// Once per report interval: limits, Receiver Report, repeated PLI.
    func tick() {
        guard state.running else { return }
        let now = Self.uptime()
        if let first = state.firstPacketUptime {
            if let duration = configuration.duration, Double(now - first) / 1e9 >= duration { return finish() }
            if let idle = configuration.idleTimeout, Double(now - state.lastPacketUptime) / 1e9 >= idle { return finish() }
        }
        guard state.senderAddress != nil else { return }
        // A PLI is repeated about once a second until a keyframe arrives: a lost PLI must not freeze a long GOP.
        sendFeedback(pli: state.needKeyframe && now - state.lastPLIUptime >= configuration.reportInterval * 9 / 10)
    }

    /// A datagram: RTCP from the sender (SR, BYE) or an RTP packet of the stream.
    func received(from address: SocketAddress, _ buffer: inout ByteBuffer) {
        guard state.running, buffer.readableBytes >= 2 else {
            if state.running { state.stats.malformedPackets += 1 }
            return
        }
        let second = buffer.getInteger(at: buffer.readerIndex + 1, as: UInt8.self)!
        if RTCPPacket.multiplexedPacketTypes.contains(second) {
            receivedRTCP(&buffer)
            return
        }
        let now = Self.uptime()
        var packet = [UInt8](buffer.readableBytesView)
        var length = packet.count
        if let srtp = state.srtpIn {
            do {
                length = try srtp.unprotectRTP(&packet, length: length)
            } catch {
                state.stats.srtpUnprotectFailures += 1
                return
            }
            packet.removeLast(packet.count - length)
        }
        guard let view = try? RTPPacketView(parsing: packet) else {
            state.stats.malformedPackets += 1
            return
        }
        if state.senderAddress == nil {
            state.senderAddress = address
            state.senderSSRC = view.header.ssrc.rawValue
            state.stats.ssrc = view.header.ssrc.rawValue
            state.reception = ReceptionStatistics(ssrc: view.header.ssrc)
        }
        guard view.header.ssrc.rawValue == state.senderSSRC else { return }
        if state.firstPacketUptime == nil { state.firstPacketUptime = now }
        state.lastPacketUptime = now
        state.reception?.record(
            sequenceNumber: view.header.sequenceNumber, timestamp: view.header.timestamp, arrival: now * 90 / 1_000_000)
        state.stats.packetsReceived += 1
        state.stats.bytesReceived += view.payloadRange.count
        for event in state.depacketizer.push(packet) {
            handle(event)
            if state.finished { return }
        }
    }

    func handle(_ event: H264DepacketizerEvent) {
        switch event {
        case .frame(let received):
            state.stats.framesReceived += 1
            onAccessUnit?(received)
            decode(received)
        case .frameDropped:
            state.stats.framesDropped += 1
            askForKeyframe()
        case .packetsLost(_, let count):
            state.stats.packetsLost += count
            askForKeyframe()
        case .malformedPacket:
            state.stats.malformedPackets += 1
        case .latePacket:
            break
        case .resynchronized:
            // The sender restarted (new SSRC or sequence numbers): wait for its next keyframe.
            state.decodedKeyframe = false
            askForKeyframe()
        }
    }

    private func decode(_ received: H264ReceivedFrame) {
        let isKeyframe = received.frame.isKeyframe
        if !isKeyframe && !state.decodedKeyframe {
            // Joined mid-stream: nothing can be decoded before an IDR.
            state.stats.framesDropped += 1
            askForKeyframe()
            return
        }
        let hasSlice = received.frame.nalUnits.contains { $0.type.isSlice }
        if hasSlice { state.awaitingPicture.append(received) }
        let produced: Bool
        do {
            produced = try state.decoder.decode(received.frame.bytes, into: &state.picture)
        } catch {
            if hasSlice { state.awaitingPicture.removeLast() }
            state.stats.decodeErrors += 1
            state.stats.framesDropped += 1
            askForKeyframe()
            return
        }
        if isKeyframe {
            state.decodedKeyframe = true
            state.needKeyframe = false
            state.stats.keyFramesDecoded += 1
            state.stats.keyframeTimes.append(Double(Self.uptime() - state.startUptime) / 1e9)
        }
        if produced { deliverPicture() }
    }

    /// Hands the decoder's latest picture out, paired with the oldest access unit still waiting for one.
    func deliverPicture() {
        guard !state.awaitingPicture.isEmpty else { return }
        let source = state.awaitingPicture.removeFirst()
        state.stats.framesDecoded += 1
        onFrameDecoded?(state.picture, source)
        if let limit = configuration.frameLimit, state.stats.framesDecoded >= limit { finish() }
    }

    private func askForKeyframe() {
        state.needKeyframe = true
        if Self.uptime() - state.lastPLIUptime >= configuration.reportInterval * 9 / 10 {
            sendFeedback(pli: true)
        }
    }

    private func receivedRTCP(_ buffer: inout ByteBuffer) {
        let srtcp = state.srtpIn
        let packets: [RTCPPacket]? = buffer.withUnsafeMutableReadableBytes { raw in
            var length = raw.count
            if let srtcp {
                do { length = try srtcp.unprotectRTCP(raw, length: length) } catch {
                    state.stats.srtpUnprotectFailures += 1
                    return nil
                }
            }
            do { return try RTCPPacket.parseCompound(UnsafeRawBufferPointer(rebasing: raw[0..<length])) } catch {
                state.stats.malformedPackets += 1
                return nil
            }
        }
        for packet in packets ?? [] {
            switch packet {
            case .senderReport(let sr) where state.senderSSRC == nil || sr.ssrc.rawValue == state.senderSSRC:
                state.stats.senderReportsReceived += 1
                state.lastSenderReportMiddle = sr.ntpTimestamp.middle32
                state.lastSenderReportArrival = Self.uptime()
            case .goodbye(let bye) where bye.sources.contains { $0.rawValue == state.senderSSRC }:
                state.stats.byeReceived = true
                if configuration.stopOnBye { finish() }
            default:
                break
            }
        }
    }
}
