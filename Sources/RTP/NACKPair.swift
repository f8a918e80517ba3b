/// One generic NACK FCI entry (RFC 4585 section 6.2.1): a lost packet ID and a bitmask of the 16 following
/// packets also lost (bit i set: PID + i + 1 lost).
///
/// ```
/// |            PID                |             BLP               |
/// ```
public struct NACKPair: Hashable, Sendable {
    /// The first lost sequence number.
    public var packetID: SequenceNumber
    /// Bitmask of following lost packets.
    public var lostBitmask: UInt16

    /// Creates an entry.
    /// - Parameters:
    ///   - packetID: the PID.
    ///   - lostBitmask: the BLP.
    public init(packetID: SequenceNumber, lostBitmask: UInt16 = 0) {
        self.packetID = packetID
        self.lostBitmask = lostBitmask
    }

    /// The sequence numbers this entry reports lost, in order.
    public var sequenceNumbers: [SequenceNumber] {
        var result = [packetID]
        for bit in 0..<16 where lostBitmask & (1 << bit) != 0 {
            result.append(packetID + (bit + 1))
        }
        return result
    }
}
