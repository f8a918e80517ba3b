/// An error from protecting or unprotecting a packet, or from creating a session.
public enum SRTPError: Error, Hashable, Sendable, CustomStringConvertible {
    /// libsrtp returned a status other than `srtp_err_status_ok`; the raw code is kept in the status.
    case library(SRTPStatus)
    /// The buffer cannot hold the packet plus the trailer protection appends.
    case bufferTooSmall(required: Int, capacity: Int)
    /// The packet length is negative, larger than the buffer, or larger than libsrtp accepts (`Int32.max`).
    case invalidPacketLength(Int)
    /// The master key and salt do not have the length the suite requires.
    case keyLengthMismatch(suite: SRTPSuite, expected: Int, actual: Int)
    /// The replay window is outside the range libsrtp accepts (64 ..< 32768 packets).
    case invalidReplayWindow(Int)

    /// A readable description that never contains key material.
    public var description: String {
        switch self {
        case .library(let status):
            status.description
        case .bufferTooSmall(let required, let capacity):
            "SRTP buffer too small: \(required) bytes needed, capacity \(capacity)"
        case .invalidPacketLength(let length):
            "SRTP packet length \(length) is invalid for the buffer"
        case .keyLengthMismatch(let suite, let expected, let actual):
            "SRTP master key and salt for \(suite.sdpName) must be \(expected) bytes, got \(actual)"
        case .invalidReplayWindow(let size):
            "SRTP replay window \(size) is outside 64..<32768"
        }
    }
}
