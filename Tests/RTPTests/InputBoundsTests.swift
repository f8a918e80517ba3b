import H264
import MediaTime
import Testing
@testable import RTP

/// Truncated and oversized input for every RTP-module parser, and values the serializers cannot write (issue 11
/// items 1 and 2): each gives a typed error, never a trap and never an over-read. The byte readers and writers now
/// check bounds with preconditions that hold in release builds, so these tests also show that no input reaches them.
@Suite struct InputBoundsTests {
    /// RTP with two CSRCs, a one-byte extension (one word), 3 payload bytes and 2 bytes of padding.
    static let fullRTP = hex("B2 E0 1234 DEADBEEF 11223344 00000001 00000002 BEDE0001 10AA0000 414243 0002")

    @Test func everyTruncationOfAnRTPPacketIsASpecificError() {
        let packet = Self.fullRTP
        for length in 0..<packet.count {
            let prefix = Array(packet[..<length])
            let expected: RTPError
            switch length {
            case ..<12: expected = .truncatedHeader(count: length)
            case ..<20: expected = .truncatedCSRCList(csrcCount: 2, available: length - 12)
            case ..<24: expected = .truncatedHeaderExtension(declaredBytes: 4, available: length - 20)
            case ..<28: expected = .truncatedHeaderExtension(declaredBytes: 8, available: length - 20)
            default:
                // The last byte read as the padding count: only the whole packet's "02" is valid.
                let count = Int(prefix.last!)
                expected = .invalidPadding(count: count, available: length - 28)
                if count >= 1, count <= length - 28 { continue }
            }
            #expect(throws: expected, "prefix of \(length) bytes") { try RTPPacketView(parsing: prefix) }
        }
        let view = try? RTPPacketView(parsing: packet)
        #expect(view?.payloadRange == 28..<31 && view?.paddingLength == 2)
    }

    @Test func oversizedRTPPacketsParseWithTheirWholePayload() throws {
        for size in [65_535, 1 << 20] {
            var packet = hex("80 60 0001 00000000 00000000")
            packet += [UInt8](repeating: 0x41, count: size - packet.count)
            let view = try RTPPacketView(parsing: packet)
            #expect(view.payloadRange == 12..<size)
        }
        // The largest extension a header can declare (65535 words), in a packet that holds it.
        var packet = hex("90 60 0001 00000000 00000000 1000FFFF")
        packet += [UInt8](repeating: 0, count: 65_535 * 4)
        let view = try RTPPacketView(parsing: packet)
        #expect(view.header.headerExtension?.data.count == 262_140 && view.payloadRange.isEmpty)
        // ... and one more byte of extension than the packet has.
        #expect(throws: RTPError.truncatedHeaderExtension(declaredBytes: 262_144, available: 262_143)) {
            try RTPPacketView(parsing: Array(packet.dropLast()))
        }
    }

    @Test func headerExtensionsThatCannotBeWrittenAreTypedErrors() {
        var header = RTPHeader(payloadType: PayloadType(96), sequenceNumber: SequenceNumber(1),
                               timestamp: RTPTimestamp(0), ssrc: SSRC(1))
        header.headerExtension = RTPHeaderExtension(profile: 0x1000, data: [UInt8](repeating: 0, count: 262_144))
        #expect(throws: RTPError.headerExtensionLength(262_144)) { try header.serializedPacket(payload: [1]) }
        header.headerExtension?.data = [1, 2, 3]  // not a whole word: the length field could not say so
        #expect(throws: RTPError.headerExtensionLength(3)) { try header.serializedPacket(payload: [1]) }
    }

    /// ffmpeg's SR + SDES (RTCPCapturedFixturesTests): 28 + 24 bytes.
    static let compound = RTCPCapturedFixturesTests.ffmpegFirstSR

    @Test func everyTruncationOfAnRTCPCompoundIsASpecificError() throws {
        let whole = try RTCPPacket.parseCompound(Self.compound)
        for length in 0..<Self.compound.count {
            let prefix = Array(Self.compound[..<length])
            if length == 28 {  // a packet boundary: the SR alone is a valid (reduced) datagram
                #expect(try RTCPPacket.parseCompound(prefix) == [whole[0]])
                continue
            }
            let offset = length < 28 ? 0 : 28
            let expected: RTCPError
            switch length - offset {
            case 0: expected = .empty
            case ..<4: expected = .truncatedHeader(offset: offset)
            default:
                let declared = offset == 0 ? 28 : 24
                expected = .lengthExceedsBuffer(offset: offset, declared: declared, available: length - offset)
            }
            #expect(throws: expected, "prefix of \(length) bytes") { try RTCPPacket.parseCompound(prefix) }
        }
    }

    @Test func oversizedRTCPIsParsedOrRejectedWithoutTrapping() throws {
        // The largest length field (65535 + 1 words) on an unknown packet type, fully present.
        var big = hex("80CC FFFF")
        big += [UInt8](repeating: 7, count: 65_535 * 4)
        guard case .unknown(let app)? = try RTCPPacket.parseCompound(big).first else {
            Issue.record("expected an unknown packet")
            return
        }
        #expect(app.body.count == 262_140)
        #expect(try RTCPPacket.serialized([.unknown(app)]) == big)
        // Trailing junk after a valid packet.
        #expect(throws: RTCPError.truncatedHeader(offset: 8)) {
            try RTCPPacket.parseCompound(hex("80C90001 11223344 80C9"))
        }
        // A report count of 31 with no blocks, a REMB declaring 255 SSRCs, a NACK whose FCI is cut.
        #expect(throws: RTCPError.packetTooShort(packetType: 201, needed: 4 + 31 * 24, available: 4)) {
            try RTCPPacket.parseCompound(hex("9FC90001 11223344"))
        }
        #expect(throws: RTCPError.rembSSRCCountMismatch(declared: 255, available: 0)) {
            try RTCPPacket.parseCompound(hex("8FCE0004 12345678 00000000 52454D42 FFFFFFFF"))
        }
    }

    @Test func extremeREMBAndTMMBRValuesSaturateInsteadOfTrapping() throws {
        // Exponent 63 and the largest mantissa: 2^18 - 1 shifted by 63 overflows UInt64; it saturates.
        let remb = try RTCPPacket.parseCompound(hex("8FCE0004 12345678 00000000 52454D42 00FFFFFF"))
        guard case .remb(let r)? = remb.first else { Issue.record("expected REMB"); return }
        #expect(r.bitrate == .max)
        let tmmbr = try RTCPPacket.parseCompound(hex("83CD0004 11223344 00000000 55667788 FFFFFFFF"))
        guard case .tmmbr(let t)? = tmmbr.first else { Issue.record("expected TMMBR"); return }
        #expect(t.entries.first?.bitrate == .max && t.entries.first?.overhead == 511)
        // Re-encoding the saturated value gives the largest encodable one, not a trap.
        #expect(try RTCPPacket.serialized([.remb(r)]).count == 20)
    }

    @Test func ntpConversionNeverTraps() {
        #expect(NTPTimestamp(unixSeconds: Int64.max, nanoseconds: 0).seconds
            == UInt32(truncatingIfNeeded: Int64.max &+ NTPTimestamp.unixEpochOffset))
        #expect(NTPTimestamp(unixSeconds: 0, nanoseconds: -1).fraction == 0)
        #expect(NTPTimestamp(unixSeconds: 0, nanoseconds: Int64.max).fraction == 0xFFFF_FFFB)  // 999999999 ns
    }

    @Test func packetsLargerThanTheLengthFieldAreTypedErrors() {
        let pairs = [NACKPair](repeating: NACKPair(packetID: SequenceNumber(1)), count: 70_000)
        let nack = RTCPPacket.nack(GenericNACK(senderSSRC: SSRC(1), mediaSSRC: SSRC(2), pairs: pairs))
        #expect(throws: RTCPError.packetTooLarge(size: 12 + 4 * 70_000)) { try nack.serialized() }
        let app = RTCPPacket.unknown(UnknownRTCPPacket(packetType: 204, countOrFormat: 0, body: [UInt8](repeating: 0, count: 262_144)))
        #expect(throws: RTCPError.packetTooLarge(size: 262_148)) { try app.serialized() }
    }

    @Test func cnameIsValidatedAtConfigurationTime() throws {
        #expect(try SourceDescriptionItem.validatedCNAME("rtc-h264@host") == .cname("rtc-h264@host"))
        let max = String(repeating: "é", count: 127) + "x"  // 255 bytes of UTF-8
        #expect(try SourceDescriptionItem.validatedCNAME(max).value.count == 255)
        #expect(throws: RTCPError.sdesItemLength(type: 1, length: 256)) {
            try SourceDescriptionItem.validatedCNAME(String(repeating: "é", count: 128))
        }
        #expect(throws: RTCPError.sdesItemLength(type: 1, length: 0)) { try SourceDescriptionItem.validatedCNAME("") }
        #expect(throws: RTCPError.sdesItemLength(type: 0, length: 1)) {
            try SourceDescriptionItem(validatingType: 0, value: [1])
        }
        #expect(try SourceDescriptionItem(validatingType: SourceDescriptionItem.toolType, value: []).value.isEmpty)
        #expect(RTCPError.sdesItemLength(type: 1, length: 300).description
            == "RTCP: a CNAME must be 1...255 bytes (RFC 3550 section 6.5), not 300")
        // What happened before: the reports built from a long CNAME failed on every send.
        let chunk = SourceDescriptionChunk(ssrc: SSRC(1), items: [.cname(String(repeating: "c", count: 300))])
        #expect(throws: RTCPError.sdesItemLength(type: 1, length: 300)) {
            try RTCPPacket.sourceDescription(SourceDescription(chunks: [chunk])).serialized()
        }
    }

    @Test(arguments: [
        (65_536, H264PayloadError.mtuTooLarge(65_536)),
        (Int.max, .mtuTooLarge(Int.max)),
        (Int.min, .payloadLimitTooSmall(-50)),
        (-1, .payloadLimitTooSmall(-50)),
        (52, .payloadLimitTooSmall(2)),
    ])
    func mtuOutOfRangeIsATypedError(mtu: Int, error: H264PayloadError) {
        // Regression (issue 11): an MTU above 65 k trapped in the STAP-A writer's UInt16(nal.length).
        #expect(throws: error) {
            try H264Packetizer(ssrc: SSRC(1), payloadType: PayloadType(96), firstSequenceNumber: SequenceNumber(0), mtu: mtu)
        }
    }

    @Test func largestMTUPacketizes() throws {
        var packetizer = try H264Packetizer(
            ssrc: SSRC(1), payloadType: PayloadType(96), firstSequenceNumber: SequenceNumber(0), mtu: 65_535)
        #expect(packetizer.maxPayloadSize == 65_535 - 20 - 8 - 12 - 10)
        let packets = try packetizer.packetize(
            frame([nal(0x67, size: 10), nal(0x68, size: 4), nal(0x65, size: 200_000)]), timestamp: RTPTimestamp(0))
        #expect(packets.count == 5)  // STAP-A(SPS, PPS) + the IDR in 4 FU-A fragments
        #expect(packets.allSatisfy { $0.count <= 65_535 - 20 - 8 - 10 })
    }

    @Test func payloadLimitValidation() {
        #expect(throws: H264PayloadError.invalidOverhead(rtpHeaderSize: 11, srtpTrailerSize: 10)) {
            try RTPPayloadLimit(rtpHeaderSize: 11).validate()
        }
        #expect(throws: H264PayloadError.invalidOverhead(rtpHeaderSize: 12, srtpTrailerSize: -1)) {
            try RTPPayloadLimit(srtpTrailerSize: -1).validate()
        }
        #expect(RTPPayloadLimit(mtu: Int.min).maxPayloadSize == -50)  // computed without overflow
        #expect(throws: Never.self) { try RTPPayloadLimit(mtu: 65_535, ipVersion: .v6).validate() }
    }

    @Test func stapANeverAggregatesANALUnitItsSizeFieldCannotHold() throws {
        // A direct payloader user with a limit above what any MTU allows: the 70000-byte NAL goes alone.
        let nals = [NALUnitLocation(offset: 0, length: 70_000, header: NALUnitHeader(byte: 0x65)),
                    NALUnitLocation(offset: 70_000, length: 10, header: NALUnitHeader(byte: 0x41))]
        let plan = try H264Payloader.payloads(for: nals, maxPayloadSize: 200_000)
        #expect(plan.map(\.kind) == [.single(index: 0), .single(index: 1)])
    }

    @Test func everyTruncationOfAnRFC6184PayloadIsASpecificError() throws {
        let stapA = hex("78 0002 6742 0003 68CE3C")
        for length in 0..<stapA.count where length != 5 {  // 5 ends after the first unit: a valid STAP-A of one
            let expected: H264PayloadError
            switch length {
            case 0: expected = .emptyPayload
            case 1: expected = .stapAEmpty
            case 2, 6: expected = .stapATruncatedSize(offset: length - 1)
            case 3, 4: expected = .stapALengthOverrun(offset: 1, size: 2, available: length - 3)
            default: expected = .stapALengthOverrun(offset: 5, size: 3, available: length - 7)
            }
            #expect(throws: expected, "\(length) bytes") { try H264PayloadView(parsing: stapA[..<length]) }
        }
        #expect(try H264PayloadView(parsing: stapA[..<5]) == .stapA([3..<5]))
        // The largest STAP-A size field, on a payload that holds it.
        let big = [0x78, 0xFF, 0xFF, 0x65] + [UInt8](repeating: 0, count: 65_534)
        #expect(try H264PayloadView(parsing: big[...]) == .stapA([3..<65_538]))
        #expect(throws: H264PayloadError.stapALengthOverrun(offset: 1, size: 65_535, available: 65_534)) {
            try H264PayloadView(parsing: big.dropLast())
        }
    }

    @Test func truncatedPayloadsAreMalformedEvents() {
        let stapA = hex("80 E0 0001 00000000 00000001 18 0003 674200 0002 6800")
        // (12 bytes, a header without payload, is ignored on purpose: libwebrtc sends padding-only probes.)
        for length in [0, 5, 13, 15, 19] {
            var depacketizer = H264Depacketizer(maxFrameSize: 64 * 1024)
            let events = depacketizer.push(Array(stapA[..<length])) + depacketizer.flush()
            let ok = events.allSatisfy { event in
                switch event {
                case .malformedPacket, .frameDropped: return true
                default: return false
                }
            }
            #expect(ok && !events.isEmpty, "prefix of \(length) bytes: \(events)")
        }
        // An oversized single-NAL packet beyond maxFrameSize is dropped as too large.
        var depacketizer = H264Depacketizer(maxFrameSize: 64 * 1024)
        var big = hex("80 E0 0002 00000000 00000001 65")
        big += [UInt8](repeating: 0x88, count: 100_000)
        let events = depacketizer.push(big) + depacketizer.flush()
        #expect(events.contains { if case .frameDropped(_, .tooLarge) = $0 { return true } else { return false } })
    }
}
