import Codec
import H264
import MediaTime
import RTP
import SRTP
import Testing
import Video
@testable import Sender

/// Issue 21: the send path writes each packet from its frame straight into the caller's buffer (the transport's batch
/// buffer) instead of packetizing into a history slot and copying from there. These tests hold the new path to the
/// bytes of the old one, for real OpenH264 output: keyframes (SPS and PPS ahead of the IDR, a STAP-A in mode 1), small
/// frames whose IDR fits one STAP-A with its parameter sets, large ones cut in FU-A, packetization modes 0 and 1, and
/// payload limits at the edges of the NAL unit and STAP-A sizes; media, retransmissions on the RTX stream and on the
/// media stream, with the transport-wide sequence number written as each leaves.
@Suite struct SendPathEquivalenceTests {
    static let media = SSRC(0x0A0B_0C0D)
    static let rtx = SSRC(0x1A1B_1C1D)
    static let rtxPayloadType = PayloadType(97)
    static let firstSequenceNumber = SequenceNumber(65_500)  // the sequence numbers wrap during the run
    static let rtxFirstSequenceNumber = SequenceNumber(700)
    static let transportCCID: UInt8 = 3

    /// Real encoder output for the pattern: `count` frames, the first and the middle one IDRs.
    static func encodedFrames(
        width: Int, height: Int, bitrate: Int, count: Int, maxNALUnitSize: Int? = nil
    ) throws -> [EncodedFrame] {
        var configuration = EncoderConfiguration(width: width, height: height, frameRate: 30, targetBitrate: bitrate)
        configuration.maxNALUnitSize = maxNALUnitSize
        configuration.frameSkipping = false
        let encoder = try H264Encoder(configuration: configuration)
        let pattern = try TestPattern(width: width, height: height)
        var picture = I420Frame(width: width, height: height)
        var frames: [EncodedFrame] = []
        for index in 0..<count {
            pattern.render(frameIndex: index, into: &picture)
            let result = try encoder.encode(.i420(picture), timestamp: Int64(index * 3000), forceKeyframe: index == count / 2)
            if let frame = result.encodedFrame { frames.append(frame) }
        }
        return frames
    }

    /// The send path as it was before issue 21, from public pieces that share no code with the new writers: each
    /// packet assembled whole (the payloader's descriptors, payload bytes taken from the frame, `RTPHeader`
    /// serialization) and kept as bytes (the old history slot); what goes on the wire is a copy of those bytes, or
    /// `RTXPacket.build` of them, with the transport-wide number written into it.
    struct LegacySendPath {
        var packetizer: H264Packetizer
        /// The packets as the old history held them, by sequence number.
        var stored: [UInt16: [UInt8]] = [:]
        /// The media sequence numbers, in order.
        var order: [SequenceNumber] = []

        /// Packetizes the frame into `stored`, the way the old packetizer wrote a slot.
        mutating func send(_ frame: EncodedFrame, timestamp: RTPTimestamp) throws {
            let descriptors = try H264Payloader.payloads(
                for: frame.nalUnits, maxPayloadSize: packetizer.maxPayloadSize, mode: packetizer.mode)
            var sequenceNumber = packetizer.nextSequenceNumber
            for descriptor in descriptors {
                var payload: [UInt8] = []
                switch descriptor.kind {
                case .single(let index):
                    payload = Array(frame.nalUnit(index))
                case .stapA(let indices):
                    let headers = indices.map { frame.bytes[frame.nalUnits[$0].offset] }
                    payload = [headers.reduce(0) { $0 | ($1 & 0x80) } | (headers.map { $0 & 0x60 }.max() ?? 0) | 24]
                    for index in indices {
                        let nal = frame.nalUnit(index)
                        payload += [UInt8(nal.count >> 8), UInt8(nal.count & 0xFF)] + nal
                    }
                case .fuA(let index, let range, let isStart, let isEnd):
                    let nal = frame.nalUnit(index)
                    let header = nal[nal.startIndex]
                    payload = [header & 0xE0 | 28, (isStart ? 0x80 : 0) | (isEnd ? 0x40 : 0) | (header & 0x1F)]
                        + nal[(nal.startIndex + range.lowerBound)..<(nal.startIndex + range.upperBound)]
                }
                let header = RTPHeader(
                    marker: descriptor.isLastOfAccessUnit, payloadType: packetizer.payloadType,
                    sequenceNumber: sequenceNumber, timestamp: timestamp, ssrc: packetizer.ssrc,
                    headerExtension: packetizer.headerExtension)
                stored[sequenceNumber.rawValue] = try header.serializedPacket(payload: payload)
                order.append(sequenceNumber)
                sequenceNumber += 1
            }
            // The real packetizer only advances its counter here (its bytes are not used).
            try packetizer.plan(frame, timestamp: timestamp) { _ in }
        }

        /// The media packet on the wire: a copy of the stored bytes, with the transport-wide number written.
        func media(_ sequenceNumber: SequenceNumber, transportSequence: SequenceNumber?) throws -> [UInt8] {
            var bytes = try #require(stored[sequenceNumber.rawValue])
            try stamp(&bytes, transportSequence)
            return bytes
        }

        /// The RTX packet on the wire: `RTXPacket.build` of the stored bytes, with the transport-wide number written.
        func retransmission(
            _ sequenceNumber: SequenceNumber, rtxSequenceNumber: SequenceNumber, transportSequence: SequenceNumber?
        ) throws -> [UInt8] {
            let original = try #require(stored[sequenceNumber.rawValue])
            var bytes = try RTXPacket.build(
                from: original, ssrc: SendPathEquivalenceTests.rtx, payloadType: SendPathEquivalenceTests.rtxPayloadType,
                sequenceNumber: rtxSequenceNumber)
            try stamp(&bytes, transportSequence)
            return bytes
        }

        private func stamp(_ bytes: inout [UInt8], _ value: SequenceNumber?) throws {
            guard let value else { return }
            let written = try bytes.withUnsafeMutableBytes {
                try TransportSequenceNumber.write(value, into: $0, id: SendPathEquivalenceTests.transportCCID)
            }
            #expect(written)
        }
    }

    /// One session run's settings.
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var width: Int
        var height: Int
        var bitrate: Int
        var mode: H264PacketizationMode = .nonInterleaved
        var mtu = 1200
        var rtx = true
        var transportCC = true
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "640x360, mode 1, RTX, transport-cc", width: 640, height: 360, bitrate: 1_500_000),
        Case(name: "160x96 small frames, mode 1, RTX", width: 160, height: 96, bitrate: 60_000),
        Case(name: "640x360, mode 1, resends on the media SSRC", width: 640, height: 360, bitrate: 1_500_000, rtx: false),
        Case(name: "320x240, mode 0, no extension", width: 320, height: 240, bitrate: 800_000, mode: .singleNALUnit,
             transportCC: false),
        Case(name: "320x240, mode 1, MTU 576", width: 320, height: 240, bitrate: 800_000, mtu: 576),
    ]

    /// The real session, unpaced, fed real frames and a NACK after each (its first, middle and last packets): every
    /// RTP packet it writes into the caller's buffer (exactly the room it asks for) equals the old path's bytes.
    @Test(arguments: cases)
    func theSessionWritesTheOldPathsBytes(_ setting: Case) throws {
        var configuration = SenderConfiguration(
            peerHost: "127.0.0.1", peerPort: 5004,
            encoder: EncoderConfiguration(width: setting.width, height: setting.height, frameRate: 30, targetBitrate: setting.bitrate))
        configuration.packetizationMode = setting.mode
        configuration.mtu = setting.mtu
        configuration.rtx = setting.rtx ? SenderConfiguration.RTX(payloadType: Self.rtxPayloadType, ssrc: Self.rtx) : nil
        configuration.transportWideCCExtensionID = setting.transportCC ? Self.transportCCID : nil
        configuration.pacingFactor = nil
        configuration.congestionControl = false
        configuration.security = SenderConfiguration.Security(key: SRTPMasterKey.random(for: .default))
        let limit = configuration.payloadLimit
        let frames = try Self.encodedFrames(
            width: setting.width, height: setting.height, bitrate: setting.bitrate, count: 12,
            maxNALUnitSize: setting.mode == .singleNALUnit ? limit.maxPayloadSize : nil)
        #expect(frames.count >= 10)
        let identity = StreamIdentity(
            ssrc: Self.media, rtxSSRC: setting.rtx ? Self.rtx : nil, firstSequenceNumber: Self.firstSequenceNumber,
            timestampOffset: 0x1234_5678, rtxFirstSequenceNumber: Self.rtxFirstSequenceNumber)
        let start = MonotonicTime(nanoseconds: 1_000_000_000)
        let session = try SenderSession(
            configuration: configuration, identity: identity, payloadLimit: limit, now: start,
            wallClock: NTPTimestamp(seconds: 3_900_000_000, fraction: 0))
        var legacy = LegacySendPath(packetizer: try H264Packetizer(
            ssrc: Self.media, payloadType: configuration.payloadType, firstSequenceNumber: Self.firstSequenceNumber,
            mode: setting.mode, mtu: limit.mtu, ipVersion: limit.ipVersion, srtpTrailerSize: limit.srtpTrailerSize,
            headerExtension: configuration.headerExtension))
        let clock = RTPClock(offset: 0x1234_5678, origin: start)
        var wire = [UInt8](repeating: 0, count: 4096)
        var sent: [[UInt8]] = []
        func drain() {
            while session.pollTransmit(rtp: { size, write in
                let length = try wire.withUnsafeMutableBytes { try write(UnsafeMutableRawBufferPointer(rebasing: $0[0..<size])) }
                sent.append(Array(wire[0..<length]))
            }, rtcp: { _ in }) {}
            while session.pollEncoderCommand() != nil {}
            while session.pollEvent() != nil {}
        }
        let statistics = EncodeStatistics(size: 0, averageQP: nil, encodeDuration: .zero, keyframeRequested: false)
        for (index, frame) in frames.enumerated() {
            let now = start + .milliseconds(33 * index)
            let first = legacy.order.count
            try legacy.send(frame, timestamp: clock.timestamp(at: now))
            session.handle(encoded: .frame(frame, statistics, captureTime: now, keyframeRequestedAt: nil), now: now)
            drain()
            let ours = legacy.order[first...]
            var lost: [SequenceNumber] = []
            for candidate in [ours.first, ours[ours.startIndex + ours.count / 2], ours.last].compactMap({ $0 })
            where !lost.contains(candidate) {
                lost.append(candidate)
            }
            session.handle(
                rtcp: [.nack(GenericNACK(senderSSRC: SSRC(9), mediaSSRC: Self.media, lost: lost))],
                now: now + .milliseconds(5))
            drain()
        }
        // Every packet, in the order it left: media (each once, in order), then the resends the NACK got.
        var transportSequence = SequenceNumber(1)
        var rtxSequence = Self.rtxFirstSequenceNumber
        var mediaSeen = 0
        var resends = 0
        var resent: Set<UInt16> = []
        for packet in sent {
            let header = try RTPPacketView(parsing: packet).header
            let stamp = setting.transportCC ? transportSequence : nil
            if header.ssrc == Self.rtx {
                let original = try packet.withUnsafeBytes { try RTXPacket.originalSequenceNumber(of: $0) }
                #expect(packet == (try legacy.retransmission(original, rtxSequenceNumber: rtxSequence, transportSequence: stamp)))
                rtxSequence += 1
                resends += 1
                resent.insert(original.rawValue)
            } else if mediaSeen < legacy.order.count, header.sequenceNumber == legacy.order[mediaSeen] {
                // The next new packet (a resend is always of one sent before).
                #expect(packet == (try legacy.media(header.sequenceNumber, transportSequence: stamp)))
                mediaSeen += 1
            } else {
                // A resend on the media SSRC (no RTX): the original packet again.
                #expect(!setting.rtx)
                #expect(packet == (try legacy.media(header.sequenceNumber, transportSequence: stamp)))
                resends += 1
                resent.insert(header.sequenceNumber.rawValue)
            }
            transportSequence += 1
        }
        #expect(mediaSeen == legacy.order.count)
        #expect(resends >= frames.count)
        #expect(session.snapshot(now: start + .seconds(1)).retransmittedPacketsSent == resends)
    }

    /// Payload limits at the edges of real frames' sizes (each NAL unit's length and a byte either side, each STAP-A
    /// of the leading NAL units exactly and a byte either side), in both modes, with an extension block: every packet
    /// written from the history's plan and frame, as media and as RTX, is the old path's.
    @Test func payloadLimitsAtTheEdgesOfTheFrames() throws {
        let frames = try Self.encodedFrames(width: 160, height: 96, bitrate: 100_000, count: 6)
            + Self.encodedFrames(width: 320, height: 240, bitrate: 600_000, count: 4)
        var limits: Set<Int> = []
        for frame in frames {
            var aggregate = H264Payloader.stapAHeaderSize
            for nal in frame.nalUnits {
                limits.formUnion([nal.length - 1, nal.length, nal.length + 1, nal.length + H264Payloader.fuAHeaderSize])
                aggregate += H264Payloader.stapASizeFieldSize + nal.length
                limits.formUnion([aggregate - 1, aggregate, aggregate + 1])
            }
        }
        let ext = try RTPHeaderExtension.oneByte([TransportSequenceNumber.element(id: Self.transportCCID, value: SequenceNumber(0))])
        var packets = 0
        for limit in limits.sorted() where (H264Payloader.minimumPayloadLimit...8000).contains(limit) {
            for mode in [H264PacketizationMode.nonInterleaved, .singleNALUnit] {
                var packetizer = try H264Packetizer(
                    ssrc: Self.media, payloadType: PayloadType(96), firstSequenceNumber: Self.firstSequenceNumber,
                    mode: mode, mtu: limit + 20 + 8 + RTPHeader.fixedSize + ext.serializedSize, srtpTrailerSize: 0,
                    headerExtension: ext)
                #expect(packetizer.maxPayloadSize == limit)
                var legacy = LegacySendPath(packetizer: packetizer)
                var history = try PacketHistory()
                var rtxSequence = Self.rtxFirstSequenceNumber
                for (index, frame) in frames.enumerated()
                where mode == .nonInterleaved || frame.nalUnits.allSatisfy({ $0.length <= limit }) {
                    let timestamp = RTPTimestamp(UInt32(index * 3000))
                    try legacy.send(frame, timestamp: timestamp)
                    let writer = packetizer
                    // Each packet is written back from the history at once (a tiny limit cuts a keyframe into more
                    // packets than the history holds).
                    try packetizer.plan(frame, timestamp: timestamp) { planned in
                        history.store(planned, of: frame, now: .zero)
                        guard let (plan, stored) = history.packet(planned.sequenceNumber, now: .zero) else {
                            Issue.record("packet \(planned.sequenceNumber) not held")
                            return
                        }
                        var wire = [UInt8](repeating: 0xAA, count: plan.size)
                        _ = try wire.withUnsafeMutableBytes { try writer.write(plan, of: stored, into: $0) }
                        let media = try legacy.media(plan.sequenceNumber, transportSequence: nil)
                        #expect(wire == media, "limit \(limit), \(mode), packet \(plan.sequenceNumber)")
                        var rtx = [UInt8](repeating: 0xAA, count: plan.size + RTXPacket.originalSequenceNumberSize)
                        _ = try rtx.withUnsafeMutableBytes {
                            try writer.writeRetransmission(
                                plan, of: stored, ssrc: Self.rtx, payloadType: Self.rtxPayloadType,
                                sequenceNumber: rtxSequence, into: $0)
                        }
                        let resent = try legacy.retransmission(
                            plan.sequenceNumber, rtxSequenceNumber: rtxSequence, transportSequence: nil)
                        #expect(rtx == resent, "limit \(limit), \(mode), RTX of \(plan.sequenceNumber)")
                        rtxSequence += 1
                        packets += 1
                    }
                }
                #expect(packetizer.nextSequenceNumber == legacy.packetizer.nextSequenceNumber)
            }
        }
        #expect(limits.count > 20)
        #expect(packets > 1000)
    }

    /// The frame's bytes are copied at most twice on the way to the wire: once into the `EncodedFrame`, once from it
    /// into the caller's buffer as the packet leaves. Shown by writing into the frame's own storage behind the array's
    /// back (the session shares it; a write through its pointer makes no copy) after the session took the frame: the
    /// media packets, and a retransmission after a second change, carry the bytes as they are when each packet is
    /// written. A copy kept anywhere between (a history of packet bytes, a staging buffer: the third copy issue 21
    /// removed) would still hold the old bytes and fail this.
    @Test(arguments: [true, false])
    func packetsAreWrittenFromTheFramesOwnStorageAsTheyLeave(rtx: Bool) throws {
        var configuration = SenderConfiguration(
            peerHost: "127.0.0.1", peerPort: 5004, encoder: EncoderConfiguration(width: 320, height: 240))
        configuration.rtx = rtx ? SenderConfiguration.RTX(payloadType: Self.rtxPayloadType, ssrc: Self.rtx) : nil
        configuration.transportWideCCExtensionID = Self.transportCCID
        configuration.pacingFactor = 2.5
        configuration.congestionControl = false
        let identity = StreamIdentity(
            ssrc: Self.media, rtxSSRC: rtx ? Self.rtx : nil, firstSequenceNumber: Self.firstSequenceNumber,
            timestampOffset: 0, rtxFirstSequenceNumber: Self.rtxFirstSequenceNumber)
        let start = MonotonicTime(nanoseconds: 1_000_000_000)
        let session = try SenderSession(
            configuration: configuration, identity: identity, payloadLimit: configuration.payloadLimit, now: start,
            wallClock: NTPTimestamp(seconds: 3_900_000_000, fraction: 0))
        // An SEI and an access unit delimiter (one STAP-A), then a P slice of 3,000 bytes (three FU-A fragments): the
        // marked bytes are the SEI's last one and the slice's first and last data bytes.
        let sei: [UInt8] = [0x06, 0x05, 0x02, 0x11, 0x22]
        let slice = [UInt8(0x41)] + [UInt8](repeating: 0x80, count: 2999)
        let frame = EncodedFrame(annexB: AnnexB.serialize([sei, [0x09, 0x10], slice]), timestamp: 0)
        let marked = [frame.nalUnits[0].offset + 4, frame.nalUnits[2].offset + 1, frame.nalUnits[2].offset + 2999]
        let statistics = EncodeStatistics(size: 0, averageQP: nil, encodeDuration: .zero, keyframeRequested: false)
        var wire = [UInt8](repeating: 0, count: 4096)
        var sent: [[UInt8]] = []
        func drain() {
            while session.pollTransmit(rtp: { size, write in
                let length = try wire.withUnsafeMutableBytes { try write(UnsafeMutableRawBufferPointer(rebasing: $0[0..<size])) }
                sent.append(Array(wire[0..<length]))
            }, rtcp: { _ in }) {}
            while session.pollEncoderCommand() != nil {}
            while session.pollEvent() != nil {}
        }
        /// Writes `value` at each marked offset of the frame's storage, without going through the array.
        func overwrite(with value: UInt8) {
            frame.bytes.withUnsafeBufferPointer { storage in
                guard let base = storage.baseAddress else { return }
                for offset in marked { UnsafeMutablePointer(mutating: base)[offset] = value }
            }
        }
        /// How many bytes of `value` the payloads carry after the first `skip` packets.
        func count(_ value: UInt8, after skip: Int) throws -> Int {
            try sent.dropFirst(skip).reduce(0) { total, packet in
                let view = try RTPPacketView(parsing: packet)
                return total + packet[view.payloadRange].filter { $0 == value }.count
            }
        }

        session.handle(encoded: .frame(frame, statistics, captureTime: start, keyframeRequestedAt: nil), now: start)
        overwrite(with: 0x5A)  // after the session took the frame, before a packet was written
        drain()
        let media = sent.count
        #expect(media >= 3)
        #expect(try count(0x5A, after: 0) == marked.count)
        overwrite(with: 0xA5)  // the packets left; the history holds the frame, not their bytes
        let lost = (0..<media).map { Self.firstSequenceNumber + $0 }
        session.handle(
            rtcp: [.nack(GenericNACK(senderSSRC: SSRC(9), mediaSSRC: Self.media, lost: lost))],
            now: start + .milliseconds(5))
        session.handleTimeout(now: start + .milliseconds(100))
        drain()
        #expect(sent.count == 2 * media)
        #expect(try count(0xA5, after: media) == marked.count)
        #expect(try count(0x5A, after: media) == 0)
    }
}
