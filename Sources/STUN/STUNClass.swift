/// The class of a STUN message: the two C bits of the message type (RFC 8489 section 5).
public enum STUNClass: UInt16, Hashable, Sendable, CaseIterable {
    /// A request (0b00), answered with a success or error response.
    case request = 0b00
    /// An indication (0b01), never answered.
    case indication = 0b01
    /// A success response (0b10).
    case successResponse = 0b10
    /// An error response (0b11), carrying ERROR-CODE.
    case errorResponse = 0b11
}
