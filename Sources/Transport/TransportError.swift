/// Why a transport refused a request.
package enum TransportError: Error, Hashable, Sendable, CustomStringConvertible {
    /// `secure(with:)` was called on a transport that already has SRTP sessions.
    case alreadySecured
    /// An RTP packet's length (or the room asked for it) is negative, larger than the room it was given, or larger
    /// than the largest datagram.
    case invalidPacketLength(Int)

    package var description: String {
        switch self {
        case .alreadySecured: "the transport is already secured; SRTP keys are installed once"
        case .invalidPacketLength(let length): "an RTP packet length of \(length) bytes is out of range"
        }
    }
}
