/// CRC-32 as ISO 3309 / ITU-T V.42 / zlib define it (reflected polynomial 0xEDB88320), which STUN's FINGERPRINT uses
/// (RFC 8489 section 14.7).
enum CRC32 {
    /// The reflected generator polynomial.
    static let polynomial: UInt32 = 0xEDB8_8320

    /// The byte-at-a-time table.
    static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? (value >> 1) ^ polynomial : value >> 1 }
        return value
    }

    /// The CRC-32 of `bytes`.
    /// - Parameters:
    ///   - bytes: The data.
    /// - Returns: The checksum (initial value and final XOR 0xFFFFFFFF).
    static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
        }
        return crc ^ 0xFFFF_FFFF
    }
}
