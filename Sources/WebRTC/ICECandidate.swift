public import STUN

/// An ICE candidate as `a=candidate` carries it (RFC 8839 section 5.1):
/// `foundation component transport priority address port typ type [raddr a] [rport p] *(name value)`.
public struct ICECandidate: Hashable, Sendable, CustomStringConvertible {
    /// The candidate type (RFC 8445 section 5.1.1).
    public enum Kind: String, Hashable, Sendable {
        /// An address on a local interface.
        case host
        /// A server-reflexive address (from STUN).
        case srflx
        /// A peer-reflexive address (learnt from a check).
        case prflx
        /// A relayed address (from TURN).
        case relay

        /// The type preference RFC 8445 section 5.1.2.2 recommends.
        public var typePreference: UInt32 {
            switch self {
            case .host: 126
            case .prflx: 110
            case .srflx: 100
            case .relay: 0
            }
        }
    }

    /// The foundation: 1 to 32 ice-chars.
    public var foundation: String
    /// The component: 1 for RTP (with rtcp-mux the only one).
    public var component: Int
    /// The transport, `udp` (lower case on output).
    public var transport: String
    /// The priority.
    public var priority: UInt32
    /// The address: an IP literal, or an mDNS name ending in `.local` (browsers hide host addresses that way).
    public var address: String
    /// The port.
    public var port: UInt16
    /// The type.
    public var kind: Kind
    /// The related address of reflexive and relayed candidates (`raddr`).
    public var relatedAddress: String?
    /// The related port of reflexive and relayed candidates (`rport`).
    public var relatedPort: UInt16?
    /// Extension attributes in order (`generation 0`, `network-id 1`, `ufrag x`, ...).
    public var extensions: [(name: String, value: String)] {
        get { extensionPairs.map { ($0.name, $0.value) } }
        set { extensionPairs = newValue.map { ExtensionPair(name: $0.name, value: $0.value) } }
    }

    struct ExtensionPair: Hashable, Sendable {
        var name: String
        var value: String
    }

    var extensionPairs: [ExtensionPair] = []

    /// The component id of RTP (and, with rtcp-mux, of RTCP too).
    public static let rtpComponent = 1
    /// The local preference of a single-interface host (RFC 8445 section 5.1.2.1 allows any value; 65535 is the
    /// recommended value when there is only one).
    public static let defaultLocalPreference: UInt32 = 65_535

    /// Creates a candidate.
    /// - Parameters:
    ///   - foundation: The foundation.
    ///   - component: The component id.
    ///   - transport: `udp`.
    ///   - priority: The priority (see `priority(kind:localPreference:component:)`).
    ///   - address: The address.
    ///   - port: The port.
    ///   - kind: The type.
    ///   - relatedAddress: For srflx/prflx/relay.
    ///   - relatedPort: For srflx/prflx/relay.
    public init(
        foundation: String, component: Int = ICECandidate.rtpComponent, transport: String = "udp",
        priority: UInt32, address: String, port: UInt16, kind: Kind, relatedAddress: String? = nil,
        relatedPort: UInt16? = nil
    ) {
        self.foundation = foundation
        self.component = component
        self.transport = transport
        self.priority = priority
        self.address = address
        self.port = port
        self.kind = kind
        self.relatedAddress = relatedAddress
        self.relatedPort = relatedPort
    }

    /// A host candidate for a local socket, with the recommended priority.
    /// - Parameters:
    ///   - address: The socket's address.
    ///   - foundation: The foundation (one per interface and type).
    ///   - localPreference: 0...65535; higher is preferred (distinguishes interfaces).
    /// - Returns: The candidate.
    public static func host(_ address: TransportAddress, foundation: String = "1",
                            localPreference: UInt32 = defaultLocalPreference) -> ICECandidate {
        ICECandidate(foundation: foundation, priority: priority(kind: .host, localPreference: localPreference),
                     address: address.ip.description, port: address.port, kind: .host)
    }

    /// The priority formula of RFC 8445 section 5.1.2.1:
    /// `2^24 * type preference + 2^8 * local preference + (256 - component)`.
    /// - Parameters:
    ///   - kind: The type.
    ///   - localPreference: 0...65535 (clamped).
    ///   - component: 1...256 (clamped).
    /// - Returns: The priority.
    public static func priority(kind: Kind, localPreference: UInt32, component: Int = rtpComponent) -> UInt32 {
        let local = min(localPreference, 65_535)
        let componentTerm = UInt32(256 - min(max(component, 1), 256))
        return kind.typePreference << 24 | local << 8 | componentTerm
    }

    /// The address as a `TransportAddress`, when it is an IP literal (not an mDNS name).
    public var transportAddress: TransportAddress? { TransportAddress(ipString: address, port: port) }

    /// The type of the peer's candidate at `address`, as `getStats()` reports a selected pair's remote side: the
    /// signalled candidate's type, or `.prflx` when none was signalled there (learnt from the peer's checks: an mDNS
    /// host candidate, a NAT's mapping, a candidate not trickled yet).
    /// - Parameters:
    ///   - address: the selected pair's remote address.
    ///   - candidates: the peer's signalled candidates.
    public static func kind(of address: TransportAddress, among candidates: [ICECandidate]) -> Kind {
        candidates.first { $0.transportAddress == address }?.kind ?? .prflx
    }

    /// Parses the value of an `a=candidate` attribute (with or without the `candidate:` prefix).
    /// - Parameters:
    ///   - text: e.g. `1467250027 1 udp 2122260223 192.168.1.23 51623 typ host generation 0`.
    /// - Throws: `JSEPError.malformedLine` (line 0) naming the field.
    public init(parsing text: String) throws(JSEPError) {
        var body = Substring(text)
        if body.hasPrefix("candidate:") { body = body.dropFirst("candidate:".count) }
        let fields = body.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        func bad(_ reason: String) -> JSEPError { .malformedLine(number: 0, line: PeerText.excerpt("a=candidate:\(body)"), reason: reason) }
        guard fields.count >= 8 else { throw bad("needs 8 fields, has \(fields.count)") }
        guard (1...32).contains(fields[0].count) else { throw bad("foundation of \(fields[0].count) characters") }
        guard let component = Int(fields[1]), (1...256).contains(component) else { throw bad("component \(fields[1])") }
        guard let priority = UInt32(fields[3]), priority > 0 else { throw bad("priority \(fields[3])") }
        guard let port = UInt16(fields[5]) else { throw bad("port \(fields[5])") }
        guard fields[6] == "typ", let kind = Kind(rawValue: fields[7]) else { throw bad("candidate type \(fields[7])") }
        self.init(foundation: fields[0], component: component, transport: fields[2].lowercased(), priority: priority,
                  address: fields[4], port: port, kind: kind)
        var index = 8
        while index + 1 < fields.count {
            let (name, value) = (fields[index], fields[index + 1])
            switch name {
            case "raddr": relatedAddress = value
            case "rport":
                guard let related = UInt16(value) else { throw bad("rport \(value)") }
                relatedPort = related
            default: extensionPairs.append(ExtensionPair(name: name, value: value))
            }
            index += 2
        }
        guard index == fields.count else { throw bad("extension '\(fields[index])' has no value") }
    }

    /// The attribute value without `candidate:`.
    public var sdpValue: String {
        var text = "\(foundation) \(component) \(transport) \(priority) \(address) \(port) typ \(kind.rawValue)"
        if let relatedAddress { text += " raddr \(relatedAddress)" }
        if let relatedPort { text += " rport \(relatedPort)" }
        for pair in extensionPairs { text += " \(pair.name) \(pair.value)" }
        return text
    }

    /// `candidate:` + `sdpValue`, as in `a=` lines and trickle ICE fragments.
    public var description: String { "candidate:\(sdpValue)" }

    public static func == (lhs: ICECandidate, rhs: ICECandidate) -> Bool { lhs.sdpValue == rhs.sdpValue }
    public func hash(into hasher: inout Hasher) { hasher.combine(sdpValue) }
}
