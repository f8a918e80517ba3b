/// One FIR FCI entry (RFC 5104 section 4.3.1.1): the target stream and a command sequence number that the
/// requester increments for each new request (repeats of one request keep it).
///
/// ```
/// |                              SSRC                             |
/// | Seq nr.       |    Reserved                                   |
/// ```
public struct FullIntraRequestEntry: Hashable, Sendable {
    /// The media stream asked to send a decoder refresh point.
    public var ssrc: SSRC
    /// The command sequence number.
    public var sequenceNumber: UInt8

    /// Creates an entry.
    /// - Parameters:
    ///   - ssrc: the target stream.
    ///   - sequenceNumber: the command sequence number.
    public init(ssrc: SSRC, sequenceNumber: UInt8) {
        self.ssrc = ssrc
        self.sequenceNumber = sequenceNumber
    }
}
