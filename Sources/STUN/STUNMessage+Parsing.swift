extension STUNMessage {
    /// The most bytes of USERNAME (RFC 8489 14.3).
    static let maxUsernameLength = 513
    /// The most bytes of REALM, NONCE, SOFTWARE and the ERROR-CODE reason (763: 127 characters of up to 6 bytes;
    /// RFC 8489 14.8-14.10, 14.14).
    static let maxTextLength = 763
    /// Address families of (XOR-)MAPPED-ADDRESS (RFC 8489 14.1).
    static let familyIPv4: UInt8 = 0x01
    static let familyIPv6: UInt8 = 0x02

    /// Whether a datagram looks like STUN: at least a header, the two leading bits zero and the magic cookie.
    /// A cheap test for demultiplexing; `init(parsing:)` does the full checks.
    /// - Parameters:
    ///   - datagram: The received bytes.
    /// - Returns: `true` when the header could be STUN.
    public static func looksLikeSTUN(_ datagram: some Collection<UInt8>) -> Bool {
        guard datagram.count >= headerLength else { return false }
        var iterator = datagram.makeIterator()
        var first: UInt8 = 0
        var cookie: UInt32 = 0
        for index in 0..<8 {
            let byte = iterator.next() ?? 0  // count checked above
            if index == 0 { first = byte }
            if index >= 4 { cookie = cookie << 8 | UInt32(byte) }
        }
        return first & 0xC0 == 0 && cookie == magicCookie
    }

    /// Parses and checks a STUN message.
    ///
    /// Checks the header (leading bits, magic cookie, length a multiple of 4 and equal to the datagram's), every
    /// attribute's bounds and layout, and FINGERPRINT when present (it must be last and match). Attributes after
    /// MESSAGE-INTEGRITY other than FINGERPRINT are ignored, as RFC 8489 14.5 requires. MESSAGE-INTEGRITY itself is
    /// checked later with `hasValidIntegrity(key:)`, once the key is known.
    /// - Parameters:
    ///   - datagram: One UDP datagram.
    /// - Throws: `STUNError` naming the first problem found.
    public init(parsing datagram: some Collection<UInt8>) throws(STUNError) {
        let bytes = Array(datagram)
        guard bytes.count >= Self.headerLength else {
            throw .truncated(needed: Self.headerLength, available: bytes.count)
        }
        guard bytes[0] & 0xC0 == 0 else { throw .notSTUN }
        let cookie = Self.readUInt32(bytes, at: 4)
        guard cookie == Self.magicCookie else { throw .badMagicCookie(cookie) }
        let length = Int(Self.readUInt16(bytes, at: 2))
        guard length % 4 == 0 else { throw .misalignedLength(length) }
        let total = Self.headerLength + length
        guard bytes.count >= total else { throw .truncated(needed: total, available: bytes.count) }
        guard bytes.count == total else { throw .trailingBytes(bytes.count - total) }

        let type = STUNMessageType(rawValue: Self.readUInt16(bytes, at: 0))
        let transactionID = STUNTransactionID(bytes: bytes[8..<20])!  // 12 bytes by construction
        self.init(type: type, transactionID: transactionID)

        var offset = Self.headerLength
        var afterIntegrity = false
        while offset < total {
            guard total - offset >= Self.attributeHeaderLength else {
                throw .truncated(needed: offset + Self.attributeHeaderLength, available: total)
            }
            let attributeType = STUNAttributeType(rawValue: Self.readUInt16(bytes, at: offset))
            let valueLength = Int(Self.readUInt16(bytes, at: offset + 2))
            let valueStart = offset + Self.attributeHeaderLength
            let paddedLength = (valueLength + 3) & ~3
            guard total - valueStart >= paddedLength else {
                throw .attributeOverrun(type: attributeType, length: valueLength, remaining: total - valueStart)
            }
            let value = Array(bytes[valueStart..<(valueStart + valueLength)])
            let next = valueStart + paddedLength

            if attributeType == .fingerprint {
                guard next == total else { throw .fingerprintNotLast }
                guard valueLength == 4 else {
                    throw .malformedAttribute(type: attributeType, reason: "length \(valueLength), expected 4")
                }
                let received = Self.readUInt32(value, at: 0)
                let expected = CRC32.checksum(bytes[0..<offset]) ^ Self.fingerprintXOR
                guard received == expected else { throw .fingerprintMismatch(expected: expected, received: received) }
                attributes.append(.fingerprint(received))
            } else if !afterIntegrity {
                let attribute = try Self.decodeAttribute(attributeType, value, transactionID: transactionID)
                if attributeType == .messageIntegrity {
                    var signed = Array(bytes[0..<offset])
                    let coveredLength = offset + Self.integrityAttributeLength - Self.headerLength
                    signed[2] = UInt8(truncatingIfNeeded: coveredLength >> 8)
                    signed[3] = UInt8(truncatingIfNeeded: coveredLength)
                    receivedIntegrity = (signed, value)
                    afterIntegrity = true
                }
                attributes.append(attribute)
            }
            offset = next
        }
    }

    /// Where the value of the first attribute of `type` lies in a message, as offsets from its first byte: how a
    /// receive path reads a TURN Data indication's DATA (RFC 8656 section 11.4) in place instead of copying it out.
    /// Walks the attribute headers only; parse the message with `init(parsing:)` first to know it is well formed.
    /// - Parameters:
    ///   - type: The attribute type.
    ///   - message: One whole STUN message.
    /// - Returns: The value's range (without padding), or nil when the message holds no such attribute or is cut.
    public static func valueRange(of type: STUNAttributeType, in message: some Collection<UInt8>) -> Range<Int>? {
        var offset = headerLength
        let total = message.count
        var index = message.index(message.startIndex, offsetBy: min(offset, total))
        while total - offset >= attributeHeaderLength {
            var header: UInt32 = 0  // type (16 bits), length (16 bits)
            for _ in 0..<attributeHeaderLength {
                header = header << 8 | UInt32(message[index])
                message.formIndex(after: &index)
            }
            let valueLength = Int(header & 0xFFFF)
            let valueStart = offset + attributeHeaderLength
            guard total - valueStart >= valueLength else { return nil }
            if UInt16(header >> 16) == type.rawValue { return valueStart..<(valueStart + valueLength) }
            let paddedLength = min((valueLength + 3) & ~3, total - valueStart)
            offset = valueStart + paddedLength
            message.formIndex(&index, offsetBy: paddedLength)
        }
        return nil
    }

    /// Decodes one attribute value.
    static func decodeAttribute(
        _ type: STUNAttributeType, _ value: [UInt8], transactionID: STUNTransactionID
    ) throws(STUNError) -> STUNAttribute {
        func expectLength(_ expected: Int) throws(STUNError) {
            guard value.count == expected else {
                throw .malformedAttribute(type: type, reason: "length \(value.count), expected \(expected)")
            }
        }
        func text(max: Int) throws(STUNError) -> String {
            guard value.count <= max else {
                throw .malformedAttribute(type: type, reason: "\(value.count) bytes, at most \(max) allowed")
            }
            guard let string = String(validating: value, as: UTF8.self) else {
                throw .malformedAttribute(type: type, reason: "not UTF-8")
            }
            return string
        }
        switch type {
        case .mappedAddress:
            return .mappedAddress(try decodeAddress(type, value, xor: nil))
        case .xorMappedAddress:
            return .xorMappedAddress(try decodeAddress(type, value, xor: transactionID))
        case .username:
            return .username(try text(max: maxUsernameLength))
        case .messageIntegrity:
            try expectLength(HMACSHA1.length)
            return .messageIntegrity(value)
        case .errorCode:
            guard value.count >= 4 else {
                throw .malformedAttribute(type: type, reason: "length \(value.count), at least 4 needed")
            }
            let errorClass = Int(value[2] & 0x07)
            let number = Int(value[3])
            let code = errorClass * 100 + number
            guard (3...6).contains(errorClass), number < 100 else {
                throw .malformedAttribute(type: type, reason: "class \(errorClass) number \(number) is not 300-699")
            }
            let reasonBytes = Array(value[4...])
            guard reasonBytes.count <= maxTextLength,
                  let reason = String(validating: reasonBytes, as: UTF8.self)
            else { throw .malformedAttribute(type: type, reason: "reason phrase is not UTF-8 of at most 763 bytes") }
            return .errorCode(code: code, reason: reason)
        case .priority:
            try expectLength(4)
            return .priority(readUInt32(value, at: 0))
        case .useCandidate:
            try expectLength(0)
            return .useCandidate
        case .iceControlling:
            try expectLength(8)
            return .iceControlling(tieBreaker: readUInt64(value, at: 0))
        case .iceControlled:
            try expectLength(8)
            return .iceControlled(tieBreaker: readUInt64(value, at: 0))
        case .software:
            return .software(try text(max: maxTextLength))
        case .realm:
            return .realm(try text(max: maxTextLength))
        case .nonce:
            return .nonce(try text(max: maxTextLength))
        case .unknownAttributes:
            guard value.count % 2 == 0 else {
                throw .malformedAttribute(type: type, reason: "odd length \(value.count)")
            }
            return .unknownAttributes(stride(from: 0, to: value.count, by: 2).map {
                STUNAttributeType(rawValue: readUInt16(value, at: $0))
            })
        case .channelNumber:
            try expectLength(4)
            return .channelNumber(readUInt16(value, at: 0))
        case .lifetime:
            try expectLength(4)
            return .lifetime(readUInt32(value, at: 0))
        case .xorPeerAddress:
            return .xorPeerAddress(try decodeAddress(type, value, xor: transactionID))
        case .data:
            return .data(value)
        case .xorRelayedAddress:
            return .xorRelayedAddress(try decodeAddress(type, value, xor: transactionID))
        case .requestedTransport:
            try expectLength(4)
            return .requestedTransport(value[0])
        default:
            return .other(type: type, value: value)
        }
    }

    /// Decodes (XOR-)MAPPED-ADDRESS (RFC 8489 14.1, 14.2).
    static func decodeAddress(
        _ type: STUNAttributeType, _ value: [UInt8], xor transactionID: STUNTransactionID?
    ) throws(STUNError) -> TransportAddress {
        guard value.count >= 4 else {
            throw .malformedAttribute(type: type, reason: "length \(value.count), at least 4 needed")
        }
        let family = value[1]
        let addressLength: Int
        switch family {
        case familyIPv4: addressLength = 4
        case familyIPv6: addressLength = 16
        default: throw .malformedAttribute(type: type, reason: "address family 0x\(String(family, radix: 16))")
        }
        guard value.count == 4 + addressLength else {
            throw .malformedAttribute(type: type, reason: "length \(value.count), expected \(4 + addressLength)")
        }
        var port = readUInt16(value, at: 2)
        var address = Array(value[4...])
        if let transactionID {
            port ^= UInt16(truncatingIfNeeded: magicCookie >> 16)
            let mask = xorMask(transactionID)
            for index in address.indices { address[index] ^= mask[index] }
        }
        return TransportAddress(ip: IPAddress(bytes: address)!, port: port)  // 4 or 16 bytes by the switch
    }

    /// The 16 bytes an address is XORed with: the magic cookie then the transaction ID (RFC 8489 14.2).
    static func xorMask(_ transactionID: STUNTransactionID) -> [UInt8] {
        [UInt8(magicCookie >> 24), UInt8((magicCookie >> 16) & 0xFF), UInt8((magicCookie >> 8) & 0xFF),
         UInt8(magicCookie & 0xFF)] + transactionID.bytes
    }

    static func readUInt16(_ bytes: [UInt8], at offset: Int) -> UInt16 {
        UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    static func readUInt32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        UInt32(readUInt16(bytes, at: offset)) << 16 | UInt32(readUInt16(bytes, at: offset + 2))
    }

    static func readUInt64(_ bytes: [UInt8], at offset: Int) -> UInt64 {
        UInt64(readUInt32(bytes, at: offset)) << 32 | UInt64(readUInt32(bytes, at: offset + 4))
    }
}
