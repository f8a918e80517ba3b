/// What a transport-wide feedback message says about one packet
/// (draft-holmer-rmcat-transport-wide-cc-extensions-01 section 3.1.1): not received, or received with its arrival
/// time as a delta from the previous received packet (or from the reference time for the first), in 250 µs ticks.
public enum TransportFeedbackPacketStatus: Hashable, Sendable {
    /// Not received (symbol 00).
    case notReceived
    /// Received, delta 0...255 ticks, written in one byte (symbol 01).
    case smallDelta(UInt8)
    /// Received, a delta outside 0...255 ticks (negative or larger), written in two signed bytes (symbol 10).
    case largeDelta(Int16)

    /// The two-bit status symbol (draft section 3.1.1).
    var symbol: UInt8 {
        switch self {
        case .notReceived: return TransportFeedback.notReceivedSymbol
        case .smallDelta: return TransportFeedback.smallDeltaSymbol
        case .largeDelta: return TransportFeedback.largeDeltaSymbol
        }
    }

    /// The status for a received packet `ticks` after the previous one, in the smallest form that holds it; nil when
    /// it does not fit two signed bytes.
    /// - Parameter ticks: the delta in 250 µs ticks.
    public static func received(ticks: Int64) -> TransportFeedbackPacketStatus? {
        if (0...Int64(UInt8.max)).contains(ticks) { return .smallDelta(UInt8(ticks)) }
        if (Int64(Int16.min)...Int64(Int16.max)).contains(ticks) { return .largeDelta(Int16(ticks)) }
        return nil
    }

    /// The receive delta in ticks, nil when not received.
    public var deltaTicks: Int64? {
        switch self {
        case .notReceived: return nil
        case .smallDelta(let ticks): return Int64(ticks)
        case .largeDelta(let ticks): return Int64(ticks)
        }
    }
}
