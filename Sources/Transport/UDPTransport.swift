import NIOCore
import RTP
import SRTP
import TURN

/// One UDP flow to a peer, shared by the sender and the receiver: the socket(s), SRTP/SRTCP in both directions,
/// RTP/RTCP demultiplexing (RFC 5761 section 4), the peer filter and the counters.
///
/// Confined to its event loop: every method is called there, and the callbacks run there.
///
/// Over a TURN relay (WebRTC, `setPeer(_:channel:stream:)`) each outgoing packet is ChannelData: its 4-byte header
/// goes in room kept in front of the packet, and incoming packets are read inside ChannelData (`.relayedMedia`). When
/// the relay's server is reached over TCP or TLS, the ChannelData (padded to 4 bytes, RFC 8656 section 12.5) goes to
/// that connection (`MediaStreamSink`) instead of the socket, and what arrives on it comes in through
/// `receiveRelayedMedia`.
///
/// Outgoing RTP is batched per frame (or per pacer burst): `queueRTP(maximumSize:write:)` has each packet written
/// straight into one wire buffer and protects it there in place, `flush` hands the batch to the socket as slices sharing that storage (one
/// `sendmmsg`). Nothing is allocated per packet; the wire buffer's storage is reused once the socket has released
/// the previous batch. On Linux, consecutive packets of a batch that are equally long leave as one segmented write
/// (UDP GSO, `SegmentationOffload`): the same datagrams, the kernel's IP path run once for them. Incoming SRTP is
/// unprotected in place in NIO's receive buffer.
package final class UDPTransport {
    /// The loop everything runs on.
    package let eventLoop: EventLoop
    /// What was carried and refused.
    package private(set) var counters = TransportCounters()
    /// Called with every accepted RTP packet (unprotected; valid during the call) and its source address.
    package var onRTP: ((UnsafeRawBufferPointer, SocketAddress) -> Void)?
    /// Called with every accepted RTCP compound packet, parsed.
    package var onRTCP: (([RTCPPacket]) -> Void)?

    /// The peer's RTP address (configured, learned from its first packet, or set by `setPeer`).
    package private(set) var peer: SocketAddress?

    /// What an interceptor decided about one inbound datagram.
    package enum InterceptVerdict: Sendable {
        /// Consumed by the interceptor (STUN, DTLS): not RTP or RTCP.
        case consumed
        /// RTP or RTCP the interceptor vouched for: unprotect and handle it, the peer filter is skipped.
        case media
        /// RTP or RTCP the interceptor vouched for, carried in a TURN message (ChannelData or a Data indication,
        /// RFC 8656): these bytes of the datagram are the packet, unprotected and handled in place.
        case relayedMedia(Range<Int>)
        /// Refused (the interceptor counts why).
        case drop
        /// Refused, and from an address other than the peer's or not authenticated as it: counted in
        /// `packetsFromStrangers` as the peer filter counts what it refuses.
        case stranger
    }

    /// Sees every inbound datagram first, before the peer filter and RTP/RTCP handling (WebRTC: ICE and DTLS share
    /// the socket with media, RFC 7983). Runs on the loop; the bytes are valid during the call.
    package var interceptor: ((UnsafeRawBufferPointer, SocketAddress) -> InterceptVerdict)?

    private let configuration: TransportConfiguration
    private let rtpSocket: DatagramEndpoint
    private let rtcpSocket: DatagramEndpoint?
    private var srtpOut: SRTPSession?
    private var srtpIn: SRTPSession?
    private var rtpTrailer: Int
    private var rtcpTrailer: Int
    private var wire: ByteBuffer
    private var packetEnds: [Int] = []
    private var offload: SegmentationOffload
    /// A copy of an SRTCP datagram, kept so that it can still be read as plain RTCP when authentication fails.
    private var scratch: [UInt8]
    private var closed = false
    /// The TURN channel media goes out on (each packet framed as ChannelData, RFC 8656 section 12.4), or nil.
    private var channel: UInt16?
    /// The TCP or TLS connection to the TURN server media goes to instead of the socket, or nil.
    private var stream: (any MediaStreamSink)?

    /// Called once on the loop when `close()` starts, while the sockets can still send (a WebRTC link releases its
    /// TURN allocations there).
    package var willClose: (() -> Void)?

    /// The smallest datagram that can be RTP or RTCP: an empty Receiver Report (RFC 3550 section 6.4.2, 8 bytes).
    static let minimumPacketSize = 8

    /// Binds the socket(s), then creates the transport on its loop.
    /// - Parameters:
    ///   - configuration: addresses, keys and policies.
    ///   - eventLoop: the loop to run on.
    /// - Returns: the transport, bound to its loop.
    /// - Throws: SRTP errors for bad keys, socket errors when an address cannot be bound (nothing stays open then).
    package static func bind(configuration: TransportConfiguration, eventLoop: EventLoop) async throws -> NIOLoopBound<UDPTransport> {
        // The socket callbacks reach the transport through a weak reference in this box, filled once the transport
        // exists. Weak, because the transport owns its sockets and each `DatagramEndpoint` keeps these callbacks for
        // as long as it lives (to bind again after NIO closes the socket), closed or not: a strong reference made the
        // cycle transport -> endpoint -> callbacks -> transport, and no transport was ever freed (issue 20, item 2:
        // every WHEP viewer's transport, its 256 KiB wire buffer and its closed channel stayed after it left).
        let box = NIOLoopBoundBox.makeEmptyBox(valueType: WeakReference<UDPTransport>.self, eventLoop: eventLoop)
        let onDatagram: @Sendable (SocketAddress, SocketAddress?, inout ByteBuffer) -> Void = { from, to, buffer in
            box.value?.object?.received(from: from, to: to, &buffer)
        }
        let onError: @Sendable (Error) -> Void = { _ in box.value?.object?.counters.socketErrors += 1 }
        let onRestart: @Sendable () -> Void = { box.value?.object?.counters.socketRestarts += 1 }
        let rtp = try await DatagramEndpoint(
            host: configuration.localHost, port: configuration.localPort, eventLoop: eventLoop,
            receiveBufferSize: configuration.receiveBufferSize, receivePacketInfo: configuration.receivePacketInfo,
            onDatagramTo: onDatagram, onError: onError, onRestart: onRestart)
        var rtcp: DatagramEndpoint?
        do {
            if !configuration.rtcpMux {
                rtcp = try await DatagramEndpoint(
                    host: configuration.localHost, port: (rtp.localAddress?.port ?? configuration.localPort) + 1,
                    eventLoop: eventLoop, receivePacketInfo: configuration.receivePacketInfo, onDatagramTo: onDatagram,
                    onError: onError, onRestart: onRestart)
            }
            let rtcpSocket = rtcp
            return try await eventLoop.submit {
                let transport = try UDPTransport(configuration: configuration, eventLoop: eventLoop, rtp: rtp, rtcp: rtcpSocket)
                box.value = WeakReference(transport)
                return NIOLoopBound(transport, eventLoop: eventLoop)
            }.get()
        } catch {
            // No socket leaks when the second bind or the SRTP set-up fails.
            await rtp.close()
            await rtcp?.close()
            throw error
        }
    }

    private init(configuration: TransportConfiguration, eventLoop: EventLoop, rtp: DatagramEndpoint, rtcp: DatagramEndpoint?) throws {
        self.configuration = configuration
        self.eventLoop = eventLoop
        self.peer = configuration.peer
        self.rtpSocket = rtp
        self.rtcpSocket = rtcp
        if let security = configuration.security {
            srtpOut = try SRTPSession(
                direction: .outbound, suite: security.suite, key: security.outboundKey,
                allowRepeatTransmission: security.allowRepeatTransmission)
            srtpIn = try SRTPSession(direction: .inbound, suite: security.suite, key: security.inboundKey)
            rtpTrailer = security.suite.rtpTrailerLength
            rtcpTrailer = security.suite.rtcpTrailerLength
        } else {
            srtpOut = nil
            srtpIn = nil
            rtpTrailer = 0
            rtcpTrailer = 0
        }
        offload = SegmentationOffload(
            enabled: configuration.segmentationOffload && System.supportsUDPSegmentationOffload)
        wire = ByteBufferAllocator().buffer(capacity: 256 * 1024)
        packetEnds.reserveCapacity(512)
        scratch = [UInt8](repeating: 0, count: DatagramEndpoint.maximumDatagramSize)
    }

    deinit {
        // Dropped without `close()`: the sockets still go (close is safe from any thread).
        if !closed {
            let (rtp, rtcp) = (rtpSocket, rtcpSocket)
            eventLoop.execute {
                rtp.closeNow()
                rtcp?.closeNow()
            }
        }
    }

    /// The bound local RTP port.
    package var localPort: Int { rtpSocket.localAddress?.port ?? 0 }

    /// The bound local RTP address.
    package var localAddress: SocketAddress? { rtpSocket.localAddress }

    /// Where RTCP goes: the peer's RTP address when muxed, its RTCP port otherwise.
    package var peerRTCP: SocketAddress? {
        guard let peer else { return nil }
        if configuration.rtcpMux { return peer }
        guard let ip = peer.ipAddress, let port = peer.port else { return nil }
        let rtcpPort = configuration.peerRTCPPort ?? (port + 1)
        return try? SocketAddress(ipAddress: ip, port: rtcpPort)
    }

    // MARK: WebRTC

    /// Whether media may leave: always, unless the configuration holds it until `secure(with:)`.
    package var isSecured: Bool { srtpOut != nil || !configuration.holdMediaUntilSecured }

    /// Installs the SRTP keys negotiated after binding (DTLS-SRTP) and releases held media. Called once.
    /// - Parameter security: the suite and both directions' keys.
    /// - Throws: SRTP errors for bad keys (nothing changes then); `TransportError.alreadySecured`.
    package func secure(with security: TransportSecurity) throws {
        eventLoop.preconditionInEventLoop()
        guard srtpOut == nil, srtpIn == nil else { throw TransportError.alreadySecured }
        let outbound = try SRTPSession(
            direction: .outbound, suite: security.suite, key: security.outboundKey,
            allowRepeatTransmission: security.allowRepeatTransmission)
        let inbound = try SRTPSession(direction: .inbound, suite: security.suite, key: security.inboundKey)
        srtpOut = outbound
        srtpIn = inbound
        rtpTrailer = security.suite.rtpTrailerLength
        rtcpTrailer = security.suite.rtcpTrailerLength
    }

    /// Sends media and reports to `address` from now on (ICE selected or changed the pair).
    /// - Parameters:
    ///   - address: the peer, or the TURN server that relays to it.
    ///   - channel: the TURN channel bound to the peer when `address` is the server: every packet then goes as
    ///     ChannelData, its 4-byte header written in the room kept in front of it; nil sends packets as they are.
    ///   - stream: the TCP or TLS connection to that server, when it is reached so: the ChannelData, padded to a
    ///     multiple of 4, goes there instead of the socket. Ignored without a channel.
    package func setPeer(_ address: SocketAddress, channel: UInt16? = nil, stream: (any MediaStreamSink)? = nil) {
        eventLoop.preconditionInEventLoop()
        if address != peer || channel != self.channel { offload.pathChanged() }
        peer = address
        self.channel = channel
        self.stream = channel == nil ? nil : stream
    }

    /// Sends one datagram as it is (STUN, DTLS): never protected, never batched with media.
    /// - Parameters:
    ///   - bytes: the datagram.
    ///   - destination: where to.
    package func sendDatagram(_ bytes: some Collection<UInt8>, to destination: SocketAddress) {
        eventLoop.preconditionInEventLoop()
        guard !closed, !bytes.isEmpty, bytes.count <= DatagramEndpoint.maximumDatagramSize else { return }
        var out = rtpSocket.channel.allocator.buffer(capacity: bytes.count)
        out.writeBytes(bytes)
        rtpSocket.write(out, to: destination)
        rtpSocket.flush()
    }

    // MARK: Sending

    /// Queues one RTP packet written by `write` straight into the current batch's buffer, and protects it there in
    /// place (room for the SRTP trailer is kept after the `maximumSize` bytes `write` gets): the send path's packets
    /// reach the wire buffer without an intermediate copy. Before the transport is secured (see
    /// `TransportConfiguration.holdMediaUntilSecured`) `write` is not called; the packet is counted as held instead.
    /// - Parameters:
    ///   - maximumSize: the most bytes the packet may take, before protection.
    ///   - write: writes the unprotected packet at the start of the buffer it gets (`maximumSize` bytes) and returns
    ///     its length.
    /// - Throws: what `write` throws, `TransportError.invalidPacketLength` for a `maximumSize` over 65,535
    ///   (`RTPPayloadLimit.maxMTU`) or a length outside 0...`maximumSize`, SRTP errors (the packet is not queued then).
    package func queueRTP(maximumSize: Int, write: (UnsafeMutableRawBufferPointer) throws -> Int) throws {
        eventLoop.preconditionInEventLoop()
        guard isSecured else {
            counters.heldBeforeSecured += 1
            return
        }
        guard maximumSize >= 0, maximumSize <= RTPPayloadLimit.maxMTU else {
            throw TransportError.invalidPacketLength(maximumSize)
        }
        if packetEnds.isEmpty { wire.clear() }
        let srtp = srtpOut
        let trailer = rtpTrailer
        let channel = self.channel
        let headroom = channel == nil ? 0 : ChannelData.headerSize
        let padded = stream != nil
        try wire.writeWithUnsafeMutableBytes(minimumWritableBytes: headroom + maximumSize + trailer + (padded ? 3 : 0)) { raw in
            let packet = UnsafeMutableRawBufferPointer(rebasing: raw[headroom...])
            var length = try write(UnsafeMutableRawBufferPointer(rebasing: packet[0..<maximumSize]))
            guard length >= 0, length <= maximumSize else { throw TransportError.invalidPacketLength(length) }
            if let srtp {
                length = try srtp.protectRTP(UnsafeMutableRawBufferPointer(rebasing: packet[0..<(length + trailer)]), length: length)
            }
            guard let channel else { return length }
            try ChannelData.writeHeader(channel: channel, payloadCount: length, into: raw)
            return Self.padChannelData(raw, length: headroom + length, padded: padded)
        }
        packetEnds.append(wire.writerIndex)
    }

    /// Copies one RTP packet made elsewhere (a test, a tool) into the current batch and protects it there in place;
    /// see `queueRTP(maximumSize:write:)`, which the send path uses to write its packets without this copy.
    /// - Parameter packet: an unprotected RTP packet.
    /// - Throws: SRTP errors, `TransportError.invalidPacketLength` for a packet over 65,535 bytes (then the packet is
    ///   not queued).
    package func queueRTP(_ packet: UnsafeRawBufferPointer) throws {
        try queueRTP(maximumSize: packet.count) { raw in
            raw.copyMemory(from: packet)
            return packet.count
        }
    }

    /// Forgets the packets queued since the last flush (a frame that failed half-way).
    package func discardQueued() {
        packetEnds.removeAll(keepingCapacity: true)
    }

    /// Hands the queued packets to the socket (one `sendmmsg`).
    /// - Returns: the number of packets handed over.
    @discardableResult
    package func flush() -> Int {
        eventLoop.preconditionInEventLoop()
        guard !packetEnds.isEmpty else { return 0 }
        guard let peer, !closed else {
            packetEnds.removeAll(keepingCapacity: true)
            return 0
        }
        var sent = 0
        if let stream {
            var start = 0
            for end in packetEnds {
                defer { start = end }
                guard stream.write(wire.getSlice(at: start, length: end - start)!) else {
                    counters.relayStreamDrops += 1
                    continue
                }
                sent += 1
                counters.rtpBytesSent += end - start
            }
            stream.flush()
        } else {
            SegmentRun.split(ends: packetEnds, offload: offload.isEnabled) { write($0, to: peer) }
            rtpSocket.flush()
            sent = packetEnds.count
            counters.rtpBytesSent += packetEnds.last!  // the batch starts at 0 in the wire buffer
        }
        counters.rtpPacketsSent += sent
        packetEnds.removeAll(keepingCapacity: true)
        return sent
    }

    /// Writes one run of packets: alone as it is, several as one segmented write (with a promise while its segment
    /// size is not yet proven on this path; a failure turns the offload off).
    private func write(_ run: SegmentRun, to peer: SocketAddress) {
        let bytes = wire.getSlice(at: run.start, length: run.end - run.start)!
        guard run.count > 1 else { return rtpSocket.write(bytes, to: peer) }
        counters.segmentedWrites += 1
        let segment = run.segment
        guard offload.needsProof(segmentSize: segment) else {
            return rtpSocket.write(bytes, to: peer, segmentSize: segment, promise: nil)
        }
        let promise = eventLoop.makePromise(of: Void.self)
        promise.futureResult.assumeIsolated().whenComplete { [weak self] result in
            guard let self else { return }
            switch result {
            case .success: offload.succeeded(segmentSize: segment)
            case .failure:
                if !closed { counters.segmentationOffloadFailures += 1 }
                offload.failed()
            }
        }
        rtpSocket.write(bytes, to: peer, segmentSize: segment, promise: promise)
    }

    /// Serializes, protects (SRTCP) and sends one compound RTCP packet to the peer's RTCP address.
    /// - Parameter packets: the compound's packets, in order (RFC 3550 section 6.1: a report first).
    /// - Throws: `RTCPError` for a packet that cannot be serialized, SRTP errors.
    package func sendRTCP(_ packets: [RTCPPacket]) throws {
        eventLoop.preconditionInEventLoop()
        guard let destination = peerRTCP, !closed else { return }
        guard isSecured else {
            counters.heldBeforeSecured += 1
            return
        }
        let channel = self.channel
        let headroom = channel == nil ? 0 : ChannelData.headerSize
        let stream = self.stream
        let size = headroom + RTCPPacket.serializedSize(of: packets) + rtcpTrailer + (stream == nil ? 0 : 3)
        let socket = rtcpSocket ?? rtpSocket
        var out = socket.channel.allocator.buffer(capacity: size)
        let srtp = srtpOut
        let trailer = rtcpTrailer
        try out.writeWithUnsafeMutableBytes(minimumWritableBytes: size) { raw in
            let packet = UnsafeMutableRawBufferPointer(rebasing: raw[headroom...])
            var length = try RTCPPacket.serialize(packets, into: packet, reservedTrailer: trailer)
            if let srtp { length = try srtp.protectRTCP(packet, length: length) }
            guard let channel else { return length }
            try ChannelData.writeHeader(channel: channel, payloadCount: length, into: raw)
            return Self.padChannelData(raw, length: headroom + length, padded: stream != nil)
        }
        if let stream {
            guard stream.write(out) else {
                counters.relayStreamDrops += 1
                return
            }
            stream.flush()
        } else {
            socket.write(out, to: destination)
            socket.flush()
        }
        counters.rtcpPacketsSent += 1
    }

    /// Closes the sockets; idempotent.
    package func close() {
        guard !closed else { return }
        if let willClose {
            self.willClose = nil
            willClose()
        }
        closed = true
        rtpSocket.closeNow()
        rtcpSocket?.closeNow()
    }

    /// Zeroes the padding after a ChannelData message of `length` bytes up to a multiple of 4 when `padded` (TCP and
    /// TLS, RFC 8656 section 12.5; `raw` has the room).
    /// - Returns: the length with the padding.
    private static func padChannelData(_ raw: UnsafeMutableRawBufferPointer, length: Int, padded: Bool) -> Int {
        guard padded else { return length }
        let total = (length + 3) & ~3
        for index in length..<total { raw[index] = 0 }
        return total
    }

    // MARK: Receiving

    /// One RTP or RTCP packet a TURN server relayed over TCP or TLS, taken out of its ChannelData by the owner of that
    /// connection (which vouched for it as `InterceptVerdict.relayedMedia` does): unprotected and handled in place.
    /// - Parameters:
    ///   - buffer: the packet alone.
    ///   - address: the server it came from.
    package func receiveRelayedMedia(_ buffer: inout ByteBuffer, from address: SocketAddress) {
        eventLoop.preconditionInEventLoop()
        guard !closed else { return }
        receivedMedia(&buffer, from: address)
    }

    /// The local address (port 0) the datagram being intercepted was sent to, with
    /// `TransportConfiguration.receivePacketInfo`; nil otherwise or outside an interceptor call.
    package private(set) var datagramDestination: SocketAddress?

    /// One datagram from either socket.
    private func received(from address: SocketAddress, to destination: SocketAddress?, _ buffer: inout ByteBuffer) {
        guard !closed else { return }
        if let interceptor {
            datagramDestination = destination
            defer { datagramDestination = nil }
            switch buffer.withUnsafeReadableBytes({ interceptor($0, address) }) {
            case .consumed, .drop: return
            case .stranger:
                counters.packetsFromStrangers += 1
                return
            case .media: break
            case .relayedMedia(let range):
                // The packet inside the TURN framing: the buffer narrowed to it, nothing copied.
                guard range.lowerBound >= 0, range.upperBound <= buffer.readableBytes else {
                    counters.malformedPackets += 1
                    return
                }
                buffer.moveWriterIndex(to: buffer.readerIndex + range.upperBound)
                buffer.moveReaderIndex(forwardBy: range.lowerBound)
            }
        } else if let peer, address.ipAddress != peer.ipAddress {
            // By IP only: peers often send RTCP from another port than their RTP port.
            counters.packetsFromStrangers += 1
            return
        }
        receivedMedia(&buffer, from: address)
    }

    /// A datagram (or a relayed packet) that may be RTP or RTCP from the peer.
    private func receivedMedia(_ buffer: inout ByteBuffer, from address: SocketAddress) {
        guard isSecured else {
            // Media before the keys exist cannot be authenticated: never read as plain RTP.
            counters.heldBeforeSecured += 1
            return
        }
        guard buffer.readableBytes >= Self.minimumPacketSize,
              let first = buffer.getInteger(at: buffer.readerIndex, as: UInt8.self), first >> 6 == RTPHeader.version,
              let second = buffer.getInteger(at: buffer.readerIndex + 1, as: UInt8.self)
        else {
            counters.malformedPackets += 1
            return
        }
        if RTCPPacket.multiplexedPacketTypes.contains(second) {
            receivedRTCP(&buffer)
        } else {
            receivedRTP(&buffer, from: address)
        }
    }

    private func receivedRTP(_ buffer: inout ByteBuffer, from address: SocketAddress) {
        let srtp = srtpIn
        buffer.withUnsafeMutableReadableBytes { raw in
            var length = raw.count
            if let srtp {
                do {
                    length = try srtp.unprotectRTP(raw, length: length)
                } catch {
                    counters.srtpUnprotectFailures += 1
                    return
                }
            }
            if peer == nil, interceptor == nil { peer = address }  // symmetric RTP: learned from the first authentic packet
            counters.rtpPacketsReceived += 1
            onRTP?(UnsafeRawBufferPointer(rebasing: raw[0..<length]), address)
        }
    }

    private func receivedRTCP(_ buffer: inout ByteBuffer) {
        let srtp = srtpIn
        let acceptPlain = configuration.acceptPlainRTCP
        let parsed: [RTCPPacket]? = buffer.withUnsafeMutableReadableBytes { raw in
            var length = raw.count
            if let srtp {
                let keepCopy = acceptPlain && raw.count <= scratch.count
                if keepCopy { scratch.withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(raw)) } }
                do {
                    length = try srtp.unprotectRTCP(raw, length: length)
                } catch {
                    guard keepCopy else {
                        counters.srtcpUnprotectFailures += 1
                        return nil
                    }
                    // Not SRTCP from the peer: with the opt-in, plain RTCP from its address is read as such.
                    let plain = scratch.withUnsafeBytes { try? RTCPPacket.parseCompound(UnsafeRawBufferPointer(rebasing: $0[0..<raw.count])) }
                    if let plain {
                        counters.plainRTCPAccepted += 1
                        return plain
                    }
                    counters.srtcpUnprotectFailures += 1
                    return nil
                }
            }
            do {
                return try RTCPPacket.parseCompound(UnsafeRawBufferPointer(rebasing: raw[0..<length]))
            } catch {
                counters.malformedPackets += 1
                return nil
            }
        }
        guard let parsed else { return }
        counters.rtcpPacketsReceived += 1
        onRTCP?(parsed)
    }
}
