extension RTCPPacket {
    /// Parses a compound or reduced-size RTCP datagram (RFC 3550 section 6.1, RFC 5506 section 3): every packet's
    /// version, length and padding are validated; packet types and feedback formats this package does not know are
    /// returned as `.unknown`. The first packet is not required to be an SR/RR, so RFC 5506 reduced-size packets
    /// (e.g. a lone PLI) are accepted.
    /// - Parameter bytes: the datagram (after SRTCP unprotect).
    /// - Returns: the packets in order.
    /// - Throws: `RTCPError` naming the first malformed field.
    public static func parseCompound(_ bytes: [UInt8]) throws(RTCPError) -> [RTCPPacket] {
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(RTCPError) in try parseCompound(raw) }
        }
        return try result.get()
    }

    /// Parses a compound or reduced-size RTCP datagram held in raw memory.
    /// - Parameter buffer: the datagram.
    /// - Returns: the packets in order.
    /// - Throws: `RTCPError` naming the first malformed field.
    public static func parseCompound(_ buffer: UnsafeRawBufferPointer) throws(RTCPError) -> [RTCPPacket] {
        let r = ByteReader(buffer: buffer)
        guard r.count > 0 else { throw .empty }
        var packets: [RTCPPacket] = []
        var offset = 0
        while offset < r.count {
            guard offset + RTCPCommonHeader.size <= r.count else { throw .truncatedHeader(offset: offset) }
            let b0 = r.u8(offset)
            let version = b0 >> 6
            guard version == RTCPCommonHeader.version else { throw .unsupportedVersion(version, offset: offset) }
            let length = (Int(r.u16(offset + 2)) + 1) * 4
            guard offset + length <= r.count else {
                throw .lengthExceedsBuffer(offset: offset, declared: length, available: r.count - offset)
            }
            var end = offset + length
            if b0 & 0x20 != 0 {
                // RFC 3550 section 6.4.1: the last octet of the padding is a count of padding octets.
                let padding = Int(r.u8(end - 1))
                guard padding > 0, padding <= length - RTCPCommonHeader.size else {
                    throw .invalidPadding(offset: offset, count: padding)
                }
                end -= padding
            }
            packets.append(
                try parseOne(
                    reader: r, packetType: r.u8(offset + 1), count: b0 & 0x1F,
                    body: (offset + RTCPCommonHeader.size)..<end))
            offset += length
        }
        return packets
    }

    private static func parseOne(reader r: ByteReader, packetType: UInt8, count: UInt8, body: Range<Int>)
        throws(RTCPError) -> RTCPPacket
    {
        let feedbackFixedSize = 8
        switch packetType {
        case RTCPPacketType.senderReport:
            return .senderReport(try SenderReport(reader: r, body: body, count: count))
        case RTCPPacketType.receiverReport:
            return .receiverReport(try ReceiverReport(reader: r, body: body, count: count))
        case RTCPPacketType.sourceDescription:
            return .sourceDescription(try SourceDescription(reader: r, body: body, count: count))
        case RTCPPacketType.goodbye:
            return .goodbye(try Goodbye(reader: r, body: body, count: count))
        case RTCPPacketType.extendedReport:
            return .extendedReport(try ExtendedReport(reader: r, body: body))
        case RTCPPacketType.transportFeedback, RTCPPacketType.payloadFeedback:
            guard body.count >= feedbackFixedSize else {
                throw .packetTooShort(packetType: packetType, needed: feedbackFixedSize, available: body.count)
            }
            switch (packetType, count) {
            case (RTCPPacketType.transportFeedback, RTCPPacketType.genericNACKFormat):
                return .nack(try GenericNACK(reader: r, body: body))
            case (RTCPPacketType.transportFeedback, RTCPPacketType.tmmbrFormat):
                return .tmmbr(try TemporaryMaximumBitrateMessage(reader: r, body: body, format: count))
            case (RTCPPacketType.transportFeedback, RTCPPacketType.tmmbnFormat):
                return .tmmbn(try TemporaryMaximumBitrateMessage(reader: r, body: body, format: count))
            case (RTCPPacketType.transportFeedback, RTCPPacketType.transportWideFeedbackFormat):
                return .transportFeedback(try TransportFeedback(reader: r, body: body))
            case (RTCPPacketType.payloadFeedback, RTCPPacketType.pliFormat):
                return .pli(PictureLossIndication(reader: r, body: body))
            case (RTCPPacketType.payloadFeedback, RTCPPacketType.firFormat):
                return .fir(try FullIntraRequest(reader: r, body: body))
            case (RTCPPacketType.payloadFeedback, RTCPPacketType.applicationLayerFeedbackFormat)
            where ReceiverEstimatedMaximumBitrate.matches(reader: r, body: body):
                return .remb(try ReceiverEstimatedMaximumBitrate(reader: r, body: body))
            default:
                break
            }
        default:
            break
        }
        return .unknown(UnknownRTCPPacket(packetType: packetType, countOrFormat: count, body: r.bytes(body)))
    }
}
