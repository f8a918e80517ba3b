import RTP

/// The transport-wide sequence number (draft-holmer-rmcat-transport-wide-cc-extensions-01 section 2): one counter
/// over every RTP packet of a session (media, retransmissions, probes), written as each packet leaves.
struct TransportSequenceStamper {
    /// The extension's ID, nil when the extension is off.
    let extensionID: UInt8?
    /// The number the next packet gets.
    private(set) var next = SequenceNumber(1)

    /// Creates a stamper.
    /// - Parameter extensionID: the negotiated one-byte extension ID, or nil (then `stamp` writes nothing).
    init(extensionID: UInt8?) {
        self.extensionID = extensionID
    }

    /// Writes the next number into `packet`'s extension element.
    /// - Parameter packet: an RTP packet carrying the extension (written in place).
    /// - Returns: the number written; nil when the extension is off or the packet has no such element.
    mutating func stamp(_ packet: UnsafeMutableRawBufferPointer) -> SequenceNumber? {
        guard let extensionID else { return nil }
        guard (try? TransportSequenceNumber.write(next, into: packet, id: extensionID)) == true else { return nil }
        defer { next += 1 }
        return next
    }
}
