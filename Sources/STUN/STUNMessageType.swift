/// The 14-bit STUN message type: a 12-bit method interleaved with the 2-bit class (RFC 8489 section 5, figure 3).
///
/// ```
///  0                 1
///  2  3  4 5 6 7 8 9 0 1 2 3 4 5
/// +--+--+-+-+-+-+-+-+-+-+-+-+-+-+
/// |M |M |M|M|M|C|M|M|M|C|M|M|M|M|
/// |11|10|9|8|7|1|6|5|4|0|3|2|1|0|
/// +--+--+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
public struct STUNMessageType: Hashable, Sendable, CustomStringConvertible {
    /// The method (12 bits); `bindingMethod` is the only one ICE uses.
    public var method: UInt16
    /// The class.
    public var messageClass: STUNClass

    /// The Binding method (RFC 8489 section 18.2).
    public static let bindingMethod: UInt16 = 0x001
    /// The TURN methods (RFC 8656 section 17).
    public static let allocateMethod: UInt16 = 0x003
    /// Refresh: extends or (LIFETIME 0) ends an allocation.
    public static let refreshMethod: UInt16 = 0x004
    /// Send (an indication): data to a peer through the relay.
    public static let sendMethod: UInt16 = 0x006
    /// Data (an indication): data from a peer through the relay.
    public static let dataMethod: UInt16 = 0x007
    /// CreatePermission: lets a peer's datagrams through the relay.
    public static let createPermissionMethod: UInt16 = 0x008
    /// ChannelBind: binds a channel number to a peer (and installs its permission).
    public static let channelBindMethod: UInt16 = 0x009
    /// The largest method number (12 bits).
    static let maxMethod: UInt16 = 0x0FFF

    /// A Binding request (0x0001).
    public static let bindingRequest = STUNMessageType(method: bindingMethod, messageClass: .request)
    /// A Binding success response (0x0101).
    public static let bindingSuccess = STUNMessageType(method: bindingMethod, messageClass: .successResponse)
    /// A Binding error response (0x0111).
    public static let bindingError = STUNMessageType(method: bindingMethod, messageClass: .errorResponse)
    /// A Binding indication (0x0011), used as a keep-alive.
    public static let bindingIndication = STUNMessageType(method: bindingMethod, messageClass: .indication)

    /// Creates a type; the method is masked to its 12 bits.
    /// - Parameters:
    ///   - method: The method number.
    ///   - messageClass: The class.
    public init(method: UInt16, messageClass: STUNClass) {
        self.method = method & Self.maxMethod
        self.messageClass = messageClass
    }

    /// Decodes the 14-bit field (the top two bits of the first header word must already be zero).
    /// - Parameters:
    ///   - rawValue: The first 16 bits of a STUN header.
    public init(rawValue: UInt16) {
        let method = (rawValue & 0x000F) | ((rawValue & 0x00E0) >> 1) | ((rawValue & 0x3E00) >> 2)
        let classBits = ((rawValue & 0x0010) >> 4) | ((rawValue & 0x0100) >> 7)
        self.method = method
        self.messageClass = STUNClass(rawValue: classBits)!  // two bits: every value is a case
    }

    /// The 14-bit field as written in the header.
    public var rawValue: UInt16 {
        let m = method
        let c = messageClass.rawValue
        return (m & 0x000F) | ((m & 0x0070) << 1) | ((m & 0x0F80) << 2) | ((c & 0b01) << 4) | ((c & 0b10) << 7)
    }

    public var description: String {
        let name = method == Self.bindingMethod ? "Binding" : "method 0x\(String(method, radix: 16))"
        return "\(name) \(messageClass)"
    }
}
