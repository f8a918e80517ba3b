extension STUNMessage {
    /// Writes the message, appending MESSAGE-INTEGRITY and FINGERPRINT as asked.
    ///
    /// Any `.messageIntegrity` or `.fingerprint` in `attributes` is skipped: both are computed here over the bytes
    /// before them (RFC 8489 14.5, 14.7).
    /// - Parameters:
    ///   - integrityKey: The MESSAGE-INTEGRITY key (for ICE the password's UTF-8 bytes), or `nil` for none.
    ///   - fingerprint: Whether to append FINGERPRINT (ICE requires it, RFC 8445 7.2.2).
    ///   - padding: The byte used to pad attributes to 4 bytes; receivers ignore it (RFC 5769's vectors use 0x20).
    /// - Returns: The datagram.
    /// - Throws: `STUNError.valueOutOfRange` when a text is too long, an error code is not 300-699 or the message
    ///   would exceed 65535 bytes.
    public func serialized(
        integrityKey: [UInt8]? = nil, fingerprint: Bool = true, padding: UInt8 = 0
    ) throws(STUNError) -> [UInt8] {
        var bytes = [UInt8]()
        bytes.reserveCapacity(128)
        Self.appendUInt16(&bytes, type.rawValue)
        Self.appendUInt16(&bytes, 0)  // length, patched below
        Self.appendUInt32(&bytes, Self.magicCookie)
        bytes += transactionID.bytes

        for attribute in attributes {
            switch attribute {
            case .messageIntegrity, .fingerprint: continue
            default: try Self.append(attribute, to: &bytes, transactionID: transactionID, padding: padding)
            }
        }
        if let integrityKey {
            try Self.patchLength(&bytes, adding: Self.integrityAttributeLength)
            let mac = HMACSHA1.authenticate(key: integrityKey, message: bytes)
            Self.appendUInt16(&bytes, STUNAttributeType.messageIntegrity.rawValue)
            Self.appendUInt16(&bytes, UInt16(HMACSHA1.length))
            bytes += mac
        }
        if fingerprint {
            try Self.patchLength(&bytes, adding: Self.fingerprintAttributeLength)
            let crc = CRC32.checksum(bytes) ^ Self.fingerprintXOR
            Self.appendUInt16(&bytes, STUNAttributeType.fingerprint.rawValue)
            Self.appendUInt16(&bytes, 4)
            Self.appendUInt32(&bytes, crc)
        }
        try Self.patchLength(&bytes, adding: 0)
        return bytes
    }

    /// The largest message the 16-bit length field allows.
    static let maxMessageLength = headerLength + Int(UInt16.max & ~3)

    /// Sets the header length to the bytes so far plus `extra`.
    static func patchLength(_ bytes: inout [UInt8], adding extra: Int) throws(STUNError) {
        let length = bytes.count + extra - headerLength
        guard bytes.count + extra <= maxMessageLength else {
            throw .valueOutOfRange(type: STUNAttributeType(rawValue: 0), reason: "message of \(length) bytes")
        }
        bytes[2] = UInt8(truncatingIfNeeded: length >> 8)
        bytes[3] = UInt8(truncatingIfNeeded: length)
    }

    /// Appends one attribute with its header and padding.
    static func append(
        _ attribute: STUNAttribute, to bytes: inout [UInt8], transactionID: STUNTransactionID, padding: UInt8
    ) throws(STUNError) {
        let type = attribute.type
        func text(_ string: String, max: Int) throws(STUNError) -> [UInt8] {
            let utf8 = Array(string.utf8)
            guard utf8.count <= max else {
                throw .valueOutOfRange(type: type, reason: "\(utf8.count) bytes, at most \(max)")
            }
            return utf8
        }
        let value: [UInt8]
        switch attribute {
        case .mappedAddress(let address):
            value = encodeAddress(address, xor: nil)
        case .xorMappedAddress(let address):
            value = encodeAddress(address, xor: transactionID)
        case .username(let name):
            value = try text(name, max: maxUsernameLength)
        case .messageIntegrity(let mac):
            value = mac
        case .fingerprint(let crc):
            value = bigEndianBytes(UInt64(crc), count: 4)
        case .errorCode(let code, let reason):
            guard (300...699).contains(code) else { throw .valueOutOfRange(type: type, reason: "code \(code)") }
            value = [0, 0, UInt8(code / 100), UInt8(code % 100)] + (try text(reason, max: maxTextLength))
        case .priority(let priority):
            value = bigEndianBytes(UInt64(priority), count: 4)
        case .useCandidate:
            value = []
        case .iceControlling(let tieBreaker), .iceControlled(let tieBreaker):
            value = bigEndianBytes(tieBreaker, count: 8)
        case .software(let string), .realm(let string), .nonce(let string):
            value = try text(string, max: maxTextLength)
        case .unknownAttributes(let types):
            guard types.count <= Int(UInt16.max) / 2 else {
                throw .valueOutOfRange(type: type, reason: "\(types.count) attribute types")
            }
            value = types.flatMap { bigEndianBytes(UInt64($0.rawValue), count: 2) }
        case .channelNumber(let channel):
            value = bigEndianBytes(UInt64(channel), count: 2) + [0, 0]
        case .lifetime(let seconds):
            value = bigEndianBytes(UInt64(seconds), count: 4)
        case .xorPeerAddress(let address), .xorRelayedAddress(let address):
            value = encodeAddress(address, xor: transactionID)
        case .requestedTransport(let protocolNumber):
            value = [protocolNumber, 0, 0, 0]
        case .data(let raw), .other(_, let raw):
            guard raw.count <= Int(UInt16.max) else {
                throw .valueOutOfRange(type: type, reason: "\(raw.count) bytes")
            }
            value = raw
        }
        appendUInt16(&bytes, type.rawValue)
        appendUInt16(&bytes, UInt16(value.count))  // every case above is at most 65535 bytes
        bytes += value
        let paddingCount = (4 - value.count % 4) % 4
        bytes += repeatElement(padding, count: paddingCount)
    }

    /// Encodes (XOR-)MAPPED-ADDRESS.
    static func encodeAddress(_ address: TransportAddress, xor transactionID: STUNTransactionID?) -> [UInt8] {
        var ip = address.ip.bytes
        var port = address.port
        if let transactionID {
            port ^= UInt16(truncatingIfNeeded: magicCookie >> 16)
            let mask = xorMask(transactionID)
            for index in ip.indices { ip[index] ^= mask[index] }
        }
        let family = address.ip.isIPv6 ? familyIPv6 : familyIPv4
        return [0, family, UInt8(port >> 8), UInt8(port & 0xFF)] + ip
    }

    static func bigEndianBytes(_ value: UInt64, count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: value >> UInt64(8 * (count - 1 - $0))) }
    }

    static func appendUInt16(_ bytes: inout [UInt8], _ value: UInt16) {
        bytes.append(UInt8(value >> 8))
        bytes.append(UInt8(value & 0xFF))
    }

    static func appendUInt32(_ bytes: inout [UInt8], _ value: UInt32) {
        appendUInt16(&bytes, UInt16(value >> 16))
        appendUInt16(&bytes, UInt16(value & 0xFFFF))
    }
}
