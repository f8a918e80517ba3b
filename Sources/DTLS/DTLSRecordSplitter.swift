/// Packs the DTLS records OpenSSL wrote into a memory BIO back into datagrams of at most an MTU.
///
/// A memory BIO is a byte stream, so the datagram boundaries OpenSSL chose are lost. DTLS records carry their own
/// length (RFC 6347 section 4.1: a 13-byte header whose last two bytes are the fragment length) and several records
/// may share a datagram (section 4.1.1), so regrouping whole records up to the MTU gives valid datagrams.
enum DTLSRecordSplitter {
    /// The DTLS record header: type (1), version (2), epoch (2), sequence number (6), length (2).
    static let headerLength = 13

    /// Splits a stream of records into datagrams.
    /// - Parameters:
    ///   - stream: Whole records back to back, as OpenSSL wrote them.
    ///   - mtu: The largest datagram payload; a record longer than this travels alone.
    /// - Returns: The datagrams. Trailing bytes that do not form a whole record travel in a datagram of their own
    ///   (OpenSSL never writes partial records, so this only keeps bytes from being lost silently).
    static func datagrams(from stream: [UInt8], mtu: Int) -> [[UInt8]] {
        var datagrams: [[UInt8]] = []
        var current: [UInt8] = []
        var offset = 0
        while offset < stream.count {
            let remaining = stream.count - offset
            let recordLength: Int
            if remaining >= headerLength {
                let fragment = Int(stream[offset + 11]) << 8 | Int(stream[offset + 12])
                recordLength = min(headerLength + fragment, remaining)
            } else {
                recordLength = remaining
            }
            if !current.isEmpty, current.count + recordLength > mtu {
                datagrams.append(current)
                current = []
            }
            current += stream[offset..<(offset + recordLength)]
            offset += recordLength
        }
        if !current.isEmpty { datagrams.append(current) }
        return datagrams
    }
}
