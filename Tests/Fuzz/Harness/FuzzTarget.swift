#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import H264
import RTP
import Codec
import Control
import SDP
import STUN
import Video
import WebRTC
import DTLS
import SRTP
import WHIP
import TURN
import MediaTime

/// The parsers fuzzed, one per `FUZZ_TARGET` value. Each feeds arbitrary bytes to a parser that takes input from
/// outside the process (the network, a file, a pipe, an HTTP body) and, where it succeeds, checks a property that
/// must hold for any input (locations inside the buffer, serialize/parse reaching a fixpoint). A broken property is
/// reported with `fatalError`, so libFuzzer keeps the input like any other crash.
enum FuzzTarget: String, CaseIterable, Sendable {
    /// `RTPPacketView`, its RFC 8285 extension elements and the RFC 6184 payload view, then the header written back;
    /// and `RTXPacket.restore` (RFC 4588) on the same bytes.
    case rtp
    /// `RTCPPacket.parseCompound` (every type, transport-wide CC feedback included), then serialize -> parse ->
    /// serialize must give the same bytes twice.
    case rtcp
    /// `H264Depacketizer` fed a sequence of packets (each prefixed by a 16-bit big-endian length).
    case depacketizer
    /// Annex-B scanning and access units, AVCC in both directions, and the avcC record.
    case annexb
    /// SPS, PPS, slice header, emulation prevention and `profile-level-id` (the first byte selects the parser).
    case parametersets
    /// `SessionDescription(parsing:)`, then serialize and parse again.
    case sdp
    /// `Y4MHeader(parsing:)`, and a `Y4MReader` reading the whole input as a stream through a pipe.
    case y4m
    /// The control endpoint's JSON body (`{"bitrate": 1500000}`) through Foundation's `JSONDecoder`.
    case json
    /// `STUNMessage(parsing:)` (RFC 8489: ICE connectivity checks arrive before any authentication), its
    /// accessors and MESSAGE-INTEGRITY checking, then the message written back and parsed again.
    case stun
    /// A browser's offer (WHIP/WHEP bodies come from the network): `JSEPSessionDescription(parsing:)`, every
    /// section's H.264 formats, extensions and ICE candidates, then `VideoAnswerer.answer` against a fixed local
    /// configuration, and the answer's text parsed again; the same text read as an endpoint's answer to the WHEP
    /// client's recvonly offer (`VideoReceiveOfferer.accept`) must give only payload types that offer had.
    case jsep
    /// A video section built from the input as a program (issue 20, item 1): each op byte adds a payload type to the
    /// `m=` line (repeated up to 2,048 times), an `a=rtpmap`, an `a=fmtp` with many parameters, or `a=rtcp-fb` lines
    /// (for a type or `*`, repeated), so that small inputs reach the shapes that made reading formats quadratic.
    /// `H264PayloadFormat.formats(in:)` must then give distinct payload types, at most 128, with bounded feedback,
    /// and the answerer must answer or refuse; libFuzzer's timeout catches work out of proportion to the input.
    case jsepFormats = "jsep-formats"
    /// A WHIP endpoint's `Link` header fields (RFC 9725 section 4.6), one per input line: `LinkHeader.parse` and
    /// `ICEServerLinks` must not trap, keep at most 16 servers and 8 explanations, read at most 16 KiB, and every
    /// server's canonical URI must read back to the same server.
    case linkHeader = "link-header"
    /// What a TURN server sends (RFC 8656): the input cut by `TURNStreamFramer` in chunks its first byte sizes, each
    /// frame and the whole input given to an allocated `TURNClient` (a permission and a channel installed). Frames
    /// must have their announced sizes, ChannelData ranges stay inside the bytes, data is reported only from the
    /// permitted peer, and unauthenticated input never ends or moves the allocation. `TURNClient.receive` (the data
    /// located in place, as the relayed media path reads it) must find exactly the bytes `handle` reports, inside
    /// the message, and `STUNMessage.valueRange` must stay inside it.
    case turn
    /// The per-frame header extensions a receiver reads (issue 25): the first byte names the IDs (high nibble the
    /// capture time's, low nibble the playout delay's), the rest is an RTP packet. `AbsoluteCaptureTime.read` and
    /// `PlayoutDelay.read` must not trap; what they decode must write back to the element's bytes, and the capture
    /// time interpolated along any timestamp must come back when interpolated back.
    case rtpExtensions = "rtp-extensions"
    /// A trickle ICE fragment (RFC 8840) as a WHEP viewer PATCHes it (issue 22): `TrickleICEFragment(parsing:)` must
    /// not trap, keep at most `maximumCandidates` candidates, and what it reads must read back the same from its
    /// own `sdp`.
    case sdpfrag
    /// FlexFEC-03 (issue 24): the input as a sequence of packets (each prefixed by a 16-bit big-endian length, its
    /// first byte choosing FEC payload or media packet) given to a `FlexFECReceiver` of SSRC 0x11223344. Headers that
    /// parse must read back from what they write; every recovered packet must be RTP of the protected stream, no longer
    /// than the FEC payload it came from allows; and a FlexFECEncoder over the media packets must build packets whose
    /// headers parse.
    case flexfec
    /// The Dependency Descriptor (issue 23): the input's first byte chooses the structure in force (none, L1T2, L1T3),
    /// the rest is one descriptor. `DependencyDescriptor(parsing:structure:)` must not trap; a descriptor it reads must
    /// write back (against the same structure) to bytes it reads to the same value, and an attached structure must
    /// keep the specification's limits (at most 64 templates, 32 decode targets).
    case dependencyDescriptor = "dependency-descriptor"
    /// Simulcast streams (issue 23): the input's lines are a video section's attributes (`a=` lines of any name, most
    /// often `a=rid` and `a=simulcast`). `SimulcastDescription.read` must not trap, for either direction; streams it
    /// reads are distinct valid RTP stream ids, at most `maximumStreams`, each with an `a=rid` of its direction, and
    /// their attributes read back to the same description.
    case simulcast
    /// SRTP and SRTCP from the network through libsrtp2 with `CSRTPCrypto`'s OpenSSL AES-CM, AES-GCM and HMAC-SHA1:
    /// the first byte picks the suite (and RTCP with its high bit), the rest is a packet. A new inbound session
    /// unprotects it: any status, never a trap, a length within the packet. When the packet is a plausible RTP or
    /// RTCP one, an outbound session protects it, and a new inbound session must give the same bytes back.
    case srtp

    /// The largest frame the Y4M target reads (larger headers are parsed but not read, to bound memory).
    static let maxY4MFrameBytes = 1 << 20

    /// Runs the target on one input.
    func run(_ bytes: [UInt8]) {
        switch self {
        case .rtp: Self.rtp(bytes)
        case .rtcp: Self.rtcp(bytes)
        case .depacketizer: Self.depacketizer(bytes)
        case .annexb: Self.annexB(bytes)
        case .parametersets: Self.parameterSets(bytes)
        case .sdp: Self.sdp(bytes)
        case .y4m: Self.y4m(bytes)
        case .json: Self.json(bytes)
        case .stun: Self.stun(bytes)
        case .jsep: Self.jsep(bytes)
        case .jsepFormats: Self.jsepFormats(bytes)
        case .linkHeader: Self.linkHeader(bytes)
        case .turn: Self.turn(bytes)
        case .rtpExtensions: Self.rtpExtensions(bytes)
        case .sdpfrag: Self.sdpfrag(bytes)
        case .flexfec: Self.flexfec(bytes)
        case .dependencyDescriptor: Self.dependencyDescriptor(bytes)
        case .simulcast: Self.simulcast(bytes)
        case .srtp: Self.srtp(bytes)
        }
    }

    private static func check(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { fatalError("fuzz property broken: \(message())") }
    }

    private static func dependencyDescriptor(_ bytes: [UInt8]) {
        guard let choice = bytes.first else { return }
        let current: DependencyStructure? = switch choice % 3 {
        case 1: DependencyStructure.singleSpatialLayer(temporalLayers: 2)
        case 2: DependencyStructure.singleSpatialLayer(temporalLayers: 3)
        default: nil
        }
        guard let descriptor = try? DependencyDescriptor(parsing: bytes.dropFirst(), structure: current) else { return }
        if let attached = descriptor.structure {
            check(attached.templates.count <= DependencyStructure.maximumTemplates, "templates \(attached.templates.count)")
            check(attached.decodeTargetCount <= DependencyStructure.maximumDecodeTargets, "decode targets")
        }
        // What was read writes back and reads the same (the padding and unused high bits may differ).
        guard let written = try? descriptor.serialized(current: current) else { return }
        let again = try? DependencyDescriptor(parsing: written, structure: current)
        check(again == descriptor, "dependency descriptor did not read back the same")
    }

    private static func srtp(_ bytes: [UInt8]) {
        guard let choice = bytes.first else { return }
        let suite = SRTPSuite.allCases[Int(choice & 0x7f) % SRTPSuite.allCases.count]
        let rtcp = choice & 0x80 != 0
        let packet = Array(bytes.dropFirst().prefix(2048))
        let keyBytes = (0..<suite.keyAndSaltLength).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 1) }
        guard let key = try? SRTPMasterKey(keyAndSalt: keyBytes, for: suite),
              let inbound = try? SRTPSession(direction: .inbound, suite: suite, key: key),
              let outbound = try? SRTPSession(direction: .outbound, suite: suite, key: key),
              let again = try? SRTPSession(direction: .inbound, suite: suite, key: key)
        else { return check(false, "cannot make SRTP sessions for \(suite)") }
        let room = [UInt8](repeating: 0, count: SRTPSuite.maxRTCPTrailer)
        var received = packet + room
        let opened = rtcp ? try? inbound.unprotectRTCP(&received, length: packet.count)
            : try? inbound.unprotectRTP(&received, length: packet.count)
        if let opened { check(opened >= 0 && opened <= packet.count, "unprotected length \(opened) of \(packet.count)") }

        guard packet.count >= (rtcp ? 8 : 12), packet[0] >> 6 == 2 else { return }
        var sealed = packet + room
        guard let sealedLength = rtcp ? try? outbound.protectRTCP(&sealed, length: packet.count)
            : try? outbound.protectRTP(&sealed, length: packet.count) else { return }
        let trailer = rtcp ? suite.rtcpTrailerLength : suite.rtpTrailerLength
        check(sealedLength == packet.count + trailer, "protected \(sealedLength) bytes of \(packet.count) (\(suite))")
        let reopened = rtcp ? try? again.unprotectRTCP(&sealed, length: sealedLength)
            : try? again.unprotectRTP(&sealed, length: sealedLength)
        check(reopened == packet.count, "protect -> unprotect gave \(String(describing: reopened)) bytes (\(suite))")
        check(Array(sealed.prefix(packet.count)) == packet, "protect -> unprotect changed the packet (\(suite))")
    }

    private static func simulcast(_ bytes: [UInt8]) {
        let text = String(decoding: bytes.prefix(16_384), as: UTF8.self)
        var section = JSEPMediaSection(kind: "video", port: 9, proto: "UDP/TLS/RTP/SAVPF", formats: ["96"])
        section.attributes = text.split(whereSeparator: \.isNewline).prefix(256).map { line in
            let body = line.hasPrefix("a=") ? line.dropFirst(2) : line
            guard let colon = body.firstIndex(of: ":") else { return SDPAttribute(String(body)) }
            return SDPAttribute(String(body[..<colon]), String(body[body.index(after: colon)...]))
        }
        for direction in [SimulcastDescription.Direction.send, .recv] {
            guard let read = try? SimulcastDescription.read(from: section, direction: direction) else { continue }
            check(read.direction == direction, "direction")
            check(read.streams.count <= SimulcastDescription.maximumStreams, "\(read.streams.count) streams")
            check(Set(read.streams.map(\.rid)).count == read.streams.count, "a stream twice")
            check(read.streams.allSatisfy { SimulcastDescription.isValidRID($0.rid) }, "an invalid id")
            var written = section
            written.attributes = read.attributes
            let again = try? SimulcastDescription.read(from: written, direction: direction)
            check(again == read, "simulcast attributes did not read back the same")
        }
    }

    private static func flexfec(_ bytes: [UInt8]) {
        let protected = SSRC(0x1122_3344)
        var receiver = FlexFECReceiver(protectedSSRC: protected, transportSequenceExtensionID: 3)
        var encoder = FlexFECEncoder(
            protectedSSRC: protected, ssrc: SSRC(9), payloadType: PayloadType(49), firstSequenceNumber: SequenceNumber(0),
            maximumPacketSize: 1200, transportSequenceExtensionID: 3)
        var offset = 0
        var longestFEC = 0
        let onRecovered: ([UInt8]) -> Void = { packet in
            let view = try? RTPPacketView(parsing: packet)
            check(view?.header.ssrc == protected, "a recovered packet is not RTP of the protected stream")
            check(packet.count <= RTPHeader.fixedSize + max(0, longestFEC - FlexFECHeader.minimumSize),
                  "a recovered packet of \(packet.count) bytes is longer than its FEC payload allows")
        }
        while offset + 3 <= bytes.count {
            let length = Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
            let kind = bytes[offset + 2]
            let start = offset + 3
            let end = min(bytes.count, start + length)
            offset = end
            let packet = Array(bytes[start..<end])
            if kind & 1 == 1 {
                longestFEC = max(longestFEC, packet.count)
                packet.withUnsafeBytes { raw in
                    if let header = try? FlexFECHeader(parsing: raw) {
                        // Written back in its shortest form (reserved bytes zero), it must read back the same.
                        var written = [UInt8](repeating: 0, count: header.size)
                        try? written.withUnsafeMutableBytes { try header.write(into: $0) }
                        let again = written.withUnsafeBytes { try? FlexFECHeader(parsing: $0) }
                        check(again == header, "a FlexFEC header does not read back from its own bytes")
                    }
                    try? receiver.receivedFEC(payload: raw, recovered: onRecovered)
                }
            } else {
                receiver.receivedMedia(packet, recovered: onRecovered)
                if (try? packet.withUnsafeBytes({ try encoder.add($0) })) == nil {
                    let built = encoder.encode(count: Int(kind >> 1))
                    var out = [UInt8](repeating: 0, count: 1300)
                    for index in built {
                        let size = (try? out.withUnsafeMutableBytes { try encoder.writePacket(index, into: $0) }) ?? 0
                        check(size == encoder.packetSize(index), "a FEC packet's size is not the one announced")
                        let view = try? RTPPacketView(parsing: Array(out[0..<size]))
                        check(view != nil, "a FEC packet is not RTP")
                        if let view {
                            let header = out.withUnsafeBytes { try? FlexFECHeader(parsing: UnsafeRawBufferPointer(rebasing: $0[view.payloadRange])) }
                            check(header?.protectedSSRC == protected, "a FEC packet's header does not parse")
                        }
                    }
                }
            }
        }
    }

    private static func sdpfrag(_ bytes: [UInt8]) {
        guard let fragment = try? TrickleICEFragment(parsing: String(decoding: bytes, as: UTF8.self)) else { return }
        check(fragment.candidates.count <= TrickleICEFragment.maximumCandidates, "\(fragment.candidates.count) candidates")
        let again = try? TrickleICEFragment(parsing: fragment.sdp)
        check(again == fragment, "the fragment does not read back from its sdp: \(String(reflecting: fragment.sdp))")
    }

    private static func rtpExtensions(_ bytes: [UInt8]) {
        guard let selector = bytes.first else { return }
        let packet = Array(bytes.dropFirst())
        let captureID = selector >> 4
        let delayID = selector & 0x0F
        packet.withUnsafeBytes { raw in
            if let time = try? AbsoluteCaptureTime.read(from: raw, id: captureID) {
                check(time.size == AbsoluteCaptureTime.shortSize || time.size == AbsoluteCaptureTime.longSize,
                      "abs-capture-time of \(time.size) bytes")
                let written = time.element(id: captureID)
                check(written.data.withUnsafeBytes { AbsoluteCaptureTime(data: $0) } == time,
                      "abs-capture-time does not read back")
                // Within +-2^31 ticks, where the signed RTP distance is the same both ways (-Int32.min wraps).
                let stamp = RTPTimestamp(UInt32(truncatingIfNeeded: time.captureTimestamp.rawValue) & 0x7FFF_FFFF)
                let there = AbsoluteCaptureTime.interpolate(time.captureTimestamp, from: RTPTimestamp(0), to: stamp)
                let back = AbsoluteCaptureTime.interpolate(there, from: stamp, to: RTPTimestamp(0))
                let error = min(back.rawValue &- time.captureTimestamp.rawValue, time.captureTimestamp.rawValue &- back.rawValue)
                check(error <= 2, "interpolation there and back moved by \(error)")
            }
            if let delay = try? PlayoutDelay.read(from: raw, id: delayID) {
                check(delay.minimum <= delay.maximum && delay.maximum <= PlayoutDelay.maximumUnits,
                      "playout delay \(delay) out of range")
                let written = delay.element(id: delayID)
                check(written.data.withUnsafeBytes { PlayoutDelay(data: $0) } == delay, "playout delay does not read back")
                check(PlayoutDelay(minimumMilliseconds: delay.minimumMilliseconds,
                                   maximumMilliseconds: delay.maximumMilliseconds) == delay,
                      "playout delay does not survive milliseconds")
            }
        }
    }

    private static func rtp(_ bytes: [UInt8]) {
        // RTX (RFC 4588): restore the original from whatever arrived on the RTX stream.
        if let original = try? RTXPacket.restore(from: bytes, mediaSSRC: SSRC(1), payloadType: PayloadType(96)) {
            check(original.count + RTXPacket.originalSequenceNumberSize <= bytes.count, "RTX restore grew the packet")
            let restored = try? RTPPacketView(parsing: original)
            check(restored?.header.ssrc == SSRC(1) && restored?.header.payloadType == PayloadType(96),
                  "a restored RTX packet is not valid RTP of the media stream")
        }
        guard let view = try? RTPPacketView(parsing: bytes) else { return }
        check(view.payloadRange.lowerBound >= view.headerSize && view.payloadRange.upperBound <= bytes.count,
              "payload range \(view.payloadRange) outside \(bytes.count) bytes")
        _ = try? view.header.headerExtension?.elements()
        let payload = bytes[view.payloadRange]
        if let h264 = try? H264PayloadView(parsing: payload) {
            switch h264 {
            case .single(let r): check(r.clamped(to: payload.indices) == r, "single NAL \(r) outside payload")
            case .stapA(let rs): for r in rs { check(r.clamped(to: payload.indices) == r, "STAP-A NAL \(r) outside") }
            case .fuA(_, _, let r): check(r.clamped(to: payload.indices) == r, "FU-A data \(r) outside payload")
            }
        }
        guard let written = try? view.header.serializedPacket(payload: Array(payload), paddingLength: view.paddingLength)
        else { return }
        check(written.count == bytes.count, "re-serialized length \(written.count) != \(bytes.count)")
        check(written[..<view.payloadRange.upperBound] == bytes[..<view.payloadRange.upperBound],
              "re-serialized header or payload differs")
    }

    private static func rtcp(_ bytes: [UInt8]) {
        guard let packets = try? RTCPPacket.parseCompound(bytes),
              let first = try? RTCPPacket.serialized(packets) else { return }
        guard let reparsed = try? RTCPPacket.parseCompound(first) else {
            fatalError("fuzz property broken: serialized RTCP does not parse again")
        }
        guard let second = try? RTCPPacket.serialized(reparsed) else {
            fatalError("fuzz property broken: reparsed RTCP does not serialize")
        }
        check(first == second, "serialize -> parse -> serialize is not a fixpoint")
    }

    private static func depacketizer(_ bytes: [UInt8]) {
        guard let first = bytes.first else { return }
        var depacketizer = H264Depacketizer(reorderWindow: Int(first & 0x3F) + 1, maxFrameSize: 64 * 1024)
        var offset = 1
        var events: [H264DepacketizerEvent] = []
        while offset + 2 <= bytes.count {
            let length = Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
            offset += 2
            let end = min(bytes.count, offset + length)
            events += depacketizer.push(Array(bytes[offset..<end]))
            offset = end
        }
        events += depacketizer.flush()
        for case .frame(let received) in events {
            for nal in received.frame.nalUnits {
                check(nal.offset >= 0 && nal.length > 0 && nal.offset + nal.length <= received.frame.bytes.count,
                      "NAL unit \(nal.range) outside a frame of \(received.frame.bytes.count) bytes")
            }
        }
    }

    private static func annexB(_ bytes: [UInt8]) {
        for location in AnnexB.nalUnitLocations(in: bytes) {
            check(location.offset >= 0 && location.offset + location.length <= bytes.count,
                  "Annex-B NAL unit \(location.range) outside \(bytes.count) bytes")
        }
        if let units = try? AnnexB.accessUnits(in: bytes) {
            for unit in units { check(unit.byteRange.upperBound <= bytes.count, "access unit outside the input") }
        }
        _ = AnnexB.nalUnits(in: bytes)
        let lengthSize = [1, 2, 4][Int(bytes.first ?? 0) % 3]
        if let annexB = try? AVCC.toAnnexB(bytes, lengthSize: lengthSize) {
            _ = AnnexB.nalUnitLocations(in: annexB)
        }
        _ = try? AVCC.fromAnnexB(bytes, lengthSize: lengthSize)
        if let record = try? AVCDecoderConfigurationRecord(bytes: bytes) {
            var written: [UInt8] = []
            record.serialize(into: &written)
            let again = try? AVCDecoderConfigurationRecord(bytes: written)
            check(again == record, "avcC record does not survive serialize -> parse")
        }
    }

    private static func parameterSets(_ bytes: [UInt8]) {
        guard let selector = bytes.first else { return }
        let rest = bytes.dropFirst()
        switch selector % 6 {
        case 0: _ = try? SequenceParameterSet(nalUnit: rest)
        case 1: _ = try? PictureParameterSet(nalUnit: rest, chromaFormatIdc: Int(selector >> 6))
        case 2: _ = try? PictureParameterSet(nalUnit: rest)
        case 3: _ = try? SliceHeader(nalUnit: rest)
        case 4:
            let escaped = RBSP.addingEmulationPrevention(rest)
            check(RBSP.removingEmulationPrevention(escaped) == Array(rest), "emulation prevention does not round-trip")
            let rbsp = RBSP(unescaping: rest)
            _ = rbsp.escapedOffset(forRBSPOffset: Int(selector) % (rest.count + 1))
        default:
            _ = try? ProfileLevelID(string: String(decoding: rest, as: UTF8.self))
        }
    }

    private static func sdp(_ bytes: [UInt8]) {
        guard let description = try? SessionDescription(parsing: String(decoding: bytes, as: UTF8.self)) else { return }
        let text = description.serialize()
        guard let again = try? SessionDescription(parsing: text) else {
            fatalError("fuzz property broken: a serialized SDP does not parse again:\n\(text)")
        }
        check(again.serialize() == text, "SDP serialize -> parse -> serialize is not a fixpoint")
    }

    private static func y4m(_ bytes: [UInt8]) {
        let line = bytes.prefix { $0 != UInt8(ascii: "\n") }
        if let header = try? Y4MHeader(parsing: String(decoding: line, as: UTF8.self)) {
            _ = header.frameByteCount
            _ = header.frameRate
            let again = try? Y4MHeader(parsing: String(header.line.dropLast()))
            check(again?.width == header.width && again?.height == header.height, "Y4M header line does not reparse")
        }
        // A pipe, as `rtc-h264 encode --input -` reads one; inputs are at most 4 KiB, under the pipe's capacity.
        var ends: [Int32] = [0, 0]
        guard bytes.count <= 4096, pipe(&ends) == 0 else { return }
        var written = 0
        bytes.withUnsafeBytes { raw in
            if let base = raw.baseAddress { written = Glibc.write(ends[1], base, raw.count) }
        }
        close(ends[1])
        let fd = ends[0]
        guard written == bytes.count || bytes.isEmpty else { close(fd); return }
        guard let reader = try? Y4MReader(fileDescriptor: fd, closeOnDeinit: true) else { return }
        guard reader.header.frameByteCount <= maxY4MFrameBytes else { return }
        var frame = I420Frame(width: reader.header.width, height: reader.header.height)
        while (try? reader.readFrame(into: &frame)) == true {}
    }

    private static func stun(_ bytes: [UInt8]) {
        _ = STUNMessage.looksLikeSTUN(bytes)
        guard let message = try? STUNMessage(parsing: bytes) else { return }
        _ = message.username
        _ = message.xorMappedAddress
        _ = message.priority
        _ = message.errorCode
        _ = message.unknownComprehensionRequired
        _ = message.hasValidIntegrity(key: Array("VOkJxbRl1RmTxUk/WvJxBt".utf8))
        guard let written = try? message.serialized(integrityKey: [1, 2, 3], fingerprint: true) else { return }
        guard let again = try? STUNMessage(parsing: written) else {
            fatalError("fuzz property broken: a serialized STUN message does not parse again")
        }
        check(again.hasValidIntegrity(key: [1, 2, 3]), "a message written with MESSAGE-INTEGRITY does not verify")
    }

    /// The local side of the `jsep` target (the same values as the negotiation tests).
    static let answerer: (video: VideoSendConfiguration, transport: LocalTransportDescription)? = {
        guard let fingerprint = try? DTLSFingerprint(sdpValue: "sha-256 01:02:03:04:05:06:07:08:09:0A:0B:0C:0D:0E:0F:10:"
                  + "11:12:13:14:15:16:17:18:19:1A:1B:1C:1D:1E:1F:20"),
              let credentials = try? ICECredentials(ufrag: "srvr", password: "serverpassword0123456789"),
              let address = TransportAddress(ipString: "192.0.2.10", port: 8443),
              let profile = try? ProfileLevelID(string: "42e01f")
        else { return nil }
        var video = VideoSendConfiguration(
            profileLevelID: profile, packetizationMode: 1, ssrc: 0x1111_2222, rtxSSRC: 0x3333_4444, cname: "cname0")
        video.transportWideCC = true
        let transport = LocalTransportDescription(
            credentials: credentials, candidates: [.host(address)], iceLite: true, fingerprint: fingerprint)
        return (video, transport)
    }()

    private static func jsep(_ bytes: [UInt8]) {
        guard let offer = try? JSEPSessionDescription(parsing: String(decoding: bytes, as: UTF8.self)) else { return }
        _ = offer.sdp
        _ = offer.bundleGroup
        for section in offer.media {
            // What an answerer reads from every section: formats, extensions, candidates.
            _ = H264PayloadFormat.formats(in: section)
            _ = section.headerExtensions
            _ = section.candidates.map(\.sdpValue)
            _ = section.mid
        }
        // The same text as an endpoint's answer to our WHEP client's recvonly offer: what it reads must be ours.
        let receive = VideoReceiveConfiguration()
        if let negotiated = try? VideoReceiveOfferer.accept(offer, video: receive) {
            let ours = receive.formats.first { $0.payloadType == negotiated.format.payloadType }
            check(ours != nil, "a payload type we did not offer: \(negotiated.format.payloadType)")
            check(negotiated.rtxPayloadType == nil || negotiated.rtxPayloadType == ours?.rtxPayloadType,
                  "an RTX type that is not our format's")
            check(negotiated.fecPayloadType == nil || negotiated.fecPayloadType == receive.fecPayloadType,
                  "a FEC type we did not offer")
        }
        guard let answerer, let (answer, _) = try? VideoAnswerer.answer(
            offer, video: answerer.video, transport: answerer.transport)
        else { return }
        let text = answer.sdp
        guard (try? JSEPSessionDescription(parsing: text)) != nil else {
            fatalError("fuzz property broken: our answer does not parse:\n\(text)")
        }
    }

    private static func jsepFormats(_ bytes: [UInt8]) {
        var formats: [String] = []
        var lines: [String] = []
        var index = 0
        func next() -> Int {
            defer { index += 1 }
            return index < bytes.count ? Int(bytes[index]) : 0
        }
        while index < bytes.count, formats.count < 20_000, lines.count < 20_000 {
            let op = next(), type = next() % 130  // 128 and 129 are out of range on purpose
            let count = (next() + 1) * 8
            switch op % 5 {
            case 0: formats += Array(repeating: String(type), count: count)
            case 1: lines.append("a=rtpmap:\(type) \(["H264", "h264", "rtx", "VP8"][op / 5 % 4])/90000")
            case 2:
                let parameters = ["packetization-mode=\(op % 3)", "profile-level-id=42e01f", "apt=\(next() % 130)",
                                  "level-asymmetry-allowed=1", "x"]
                lines.append("a=fmtp:\(type) " + (0..<count).map { parameters[$0 % parameters.count] }.joined(separator: ";"))
            case 3:
                for line in 0..<count { lines.append("a=rtcp-fb:\(op & 8 == 0 ? "*" : String(type)) fb\(line % 40)") }
            default: lines.append("a=rtcp-fb:\(type) \(["nack", "nack pli", "ccm fir", "goog-remb"][op / 5 % 4])")
            }
        }
        guard !formats.isEmpty else { return }
        let text = (["v=0", "o=- 1 1 IN IP4 0.0.0.0", "s=-", "t=0 0",
                     "m=video 9 UDP/TLS/RTP/SAVPF " + formats.joined(separator: " "), "a=mid:0", "a=recvonly",
                     "a=rtcp-mux", "a=ice-ufrag:abcd", "a=ice-pwd:0123456789abcdefghijklmn", "a=setup:actpass",
                     "a=fingerprint:sha-256 " + (16...47).map { String($0, radix: 16, uppercase: true) }.joined(separator: ":")]
                    + lines).joined(separator: "\r\n") + "\r\n"
        guard let offer = try? JSEPSessionDescription(parsing: text), let section = offer.media.first else { return }
        let result = H264PayloadFormat.formats(in: section)
        check(result.count <= 128, "\(result.count) formats")
        check(Set(result.map(\.payloadType)).count == result.count, "a payload type came out twice")
        check(result.allSatisfy { $0.feedback.count <= 32 && Set($0.feedback).count == $0.feedback.count },
              "unbounded or repeated feedback")
        if let answerer {
            _ = try? VideoAnswerer.answer(offer, video: answerer.video, transport: answerer.transport)
        }
    }

    private static func linkHeader(_ bytes: [UInt8]) {
        let fields = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
        let total = fields.reduce(0) { $0 + $1.utf8.count }
        let parse = LinkHeader.parse(fields)
        check(parse.links.count <= min(total, LinkHeader.maximumInputLength) / 2 + 1, "\(parse.links.count) links")
        check(parse.problems.count <= LinkHeader.maximumExplanations, "\(parse.problems.count) explanations")
        check((parse.truncation != nil) == (total > LinkHeader.maximumInputLength), "truncation of \(total) bytes")
        let links = ICEServerLinks(fieldValues: fields)
        check(links.servers.count <= ICEServerLinks.maximumServers, "\(links.servers.count) servers")
        check(links.problems.count <= LinkHeader.maximumExplanations, "\(links.problems.count) problems")
        for server in links.servers {
            check(server.uri.utf8.count <= ICEServer.maximumFieldLength, "URI of \(server.uri.utf8.count) bytes")
            let again = try? ICEServer(uri: server.uri, username: server.username, credential: server.credential)
            check(again == server, "\(server.uri) does not read back to the same server")
            check(server.credential == nil || server.description.hasSuffix("credential <redacted>)"),
                  "a credential is not redacted")
        }
    }

    /// The body of an error reply: `{"ok":false,"error":"..."}`.
    private struct ErrorReply: Decodable {
        var ok: Bool
        var error: String
    }

    /// The control endpoint's request parser, as it ships, on every route that takes a body: a command within range
    /// or a 400 reply that is a JSON object; never a trap.
    private static func json(_ bytes: [UInt8]) {
        for path in ["/bitrate", "/framerate", "/degradation-preference"] {
            switch ControlRequestParser.command(method: "POST", path: path, body: bytes) {
            case .success(.setBitrate(let bps)):
                guard bps >= 1, bps <= RateParser.maximumBitrate else { fatalError("fuzz property broken: bitrate \(bps)") }
            case .success(.setFrameRate(let fps)):
                guard fps.isFinite, fps > 0 else { fatalError("fuzz property broken: frame rate \(fps)") }
            case .success(.setDegradationPreference):
                break
            case .success(let command):
                fatalError("fuzz property broken: \(path) gave \(command)")
            case .failure(let error):
                guard error.reply.status == 400,
                      let reply = try? JSONDecoder().decode(ErrorReply.self, from: Data(error.reply.body.utf8)),
                      !reply.ok, !reply.error.isEmpty
                else { fatalError("fuzz property broken: \(error.reply)") }
            }
        }
    }

    /// The TURN target's allocated client, built once: a scripted 401 and a signed success, then a permission and a
    /// channel for one peer.
    nonisolated(unsafe) private static var turnClient: TURNClient? = nil
    private static let turnPeer = TransportAddress(ipString: "203.0.113.7", port: 5000)!

    private static func allocatedTURNClient() -> TURNClient {
        if let turnClient { return turnClient }
        let credential = LongTermCredential(username: "fuzz", password: "fuzz")
        var generator = SplitMix64(seed: 1)
        var client = TURNClient(
            configuration: TURNClientConfiguration(
                server: TransportAddress(ipString: "192.0.2.1", port: 3478)!, credential: credential),
            using: &generator)
        let key = credential.key(realm: "r")
        func answer(_ attributes: [STUNAttribute], _ messageClass: STUNClass, signed: Bool) {
            guard let request = client.pollTransmit(), let parsed = try? STUNMessage(parsing: request),
                  let bytes = try? STUNMessage(
                      type: STUNMessageType(method: parsed.type.method, messageClass: messageClass),
                      transactionID: parsed.transactionID, attributes: attributes
                  ).serialized(integrityKey: signed ? key : nil)
            else { fatalError("fuzz set-up: no TURN request") }
            client.handle(bytes, now: .zero)
        }
        client.start(now: .zero)
        answer([.errorCode(code: 401, reason: "Unauthorized"), .realm("r"), .nonce("n")], .errorResponse, signed: false)
        answer([.xorRelayedAddress(TransportAddress(ipString: "192.0.2.1", port: 50_000)!)], .successResponse, signed: true)
        try? client.createPermission(for: turnPeer, now: .zero)
        answer([], .successResponse, signed: true)
        try? client.bindChannel(to: turnPeer, now: .zero)
        answer([], .successResponse, signed: true)
        while client.pollEvent() != nil {}
        check(client.channel(for: turnPeer) == 0x4000, "fuzz set-up: no channel")
        turnClient = client
        return client
    }

    private static func turn(_ bytes: [UInt8]) {
        if let (_, range) = try? ChannelData.parse(bytes) {
            check(range.clamped(to: bytes.indices) == range, "ChannelData range \(range) outside \(bytes.count) bytes")
        }
        var client = allocatedTURNClient()
        let chunk = Int(bytes.first ?? 0) % 7 + 1
        var framer = TURNStreamFramer()
        var frames: [[UInt8]] = []
        var offset = 0
        framing: while offset < bytes.count {
            framer.append(bytes[offset..<min(offset + chunk, bytes.count)])
            offset += chunk
            while true {
                let next: [UInt8]?
                do { next = try framer.nextFrame() } catch { break framing }
                guard let frame = next else { break }
                check(frame.count >= 4, "a frame of \(frame.count) bytes")
                let length = Int(frame[2]) << 8 | Int(frame[3])
                let expected = ChannelData.startsChannelData(frame[0])
                    ? ChannelData.wireSize(payloadCount: length, padded: true) : 20 + length
                check(frame.count == expected, "a frame of \(frame.count) bytes announcing \(expected)")
                frames.append(frame)
            }
        }
        // `receive` (data read in place) must agree with `handle` (data copied into an event) on every message.
        var receiver = allocatedTURNClient()
        for message in frames + [bytes] {
            let now = MonotonicTime(nanoseconds: 1_000_000)
            client.handle(message, now: now)
            if let range = STUNMessage.valueRange(of: .data, in: message) {
                check(range.lowerBound >= 24 && range.upperBound <= message.count, "DATA at \(range) in \(message.count) bytes")
            }
            var reference = receiver
            reference.handle(message, now: now)
            var copied: [UInt8]?
            while let event = reference.pollEvent() { if case .data(_, let payload) = event { copied = payload } }
            if let (peer, range) = receiver.receive(message, now: now) {
                check(range.lowerBound >= 0 && range.upperBound <= message.count, "data at \(range) in \(message.count) bytes")
                check(peer.ip == turnPeer.ip, "data received from \(peer), which has no permission")
                check(Array(message[range]) == copied, "receive found \(range), handle reported \(copied?.count ?? -1) bytes")
            } else {
                check(copied == nil, "handle reported data that receive did not find")
            }
        }
        client.handleTimeout(now: MonotonicTime(nanoseconds: 2_000_000))
        while let event = client.pollEvent() {
            switch event {
            // Permissions are per IP address (RFC 8656 section 9): any port of the permitted peer.
            case .data(let from, _): check(from.ip == turnPeer.ip, "data reported from \(from), which has no permission")
            default: fatalError("fuzz property broken: unauthenticated input gave \(event)")
            }
        }
        check(client.channel(for: turnPeer) == 0x4000, "the channel was lost")
        if case .allocated = client.state {} else { fatalError("fuzz property broken: the allocation moved to \(client.state)") }
    }
}
