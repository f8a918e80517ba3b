import STUN
import TURN

/// A TURN server (RFC 8656) and STUN server (RFC 8489 Binding) in memory, for tests of what runs on top of the TURN
/// client: the 401 challenge, then signed answers to Allocate, Refresh, CreatePermission and ChannelBind; Send
/// indications and ChannelData relayed to permitted peers from `relayed`; a peer's datagrams back as Data indications,
/// or as ChannelData once a channel is bound. `mapped` is where it sees the client (a NAT's address, say).
struct SimulatedTURNServer {
    let address: TransportAddress
    let relayed: TransportAddress
    let mapped: TransportAddress
    let credential: LongTermCredential
    static let realm = "simulated.test"
    static let nonce = "n0nce"

    private(set) var permitted: Set<IPAddress> = []
    private(set) var channels: [UInt16: TransportAddress] = [:]
    private(set) var requests: [String] = []
    /// Whether the allocation was released (a Refresh with LIFETIME 0).
    private(set) var released = false

    var key: [UInt8] { credential.key(realm: Self.realm) }

    /// What the server sends: to the client (`toClient`) or, from `relayed`, to a peer.
    enum Output: Equatable {
        case toClient([UInt8])
        case toPeer(TransportAddress, [UInt8])
    }

    init(address: TransportAddress, relayed: TransportAddress, mapped: TransportAddress, credential: LongTermCredential) {
        self.address = address
        self.relayed = relayed
        self.mapped = mapped
        self.credential = credential
    }

    /// A message from the client.
    mutating func handle(_ bytes: [UInt8]) -> [Output] {
        if let first = bytes.first, ChannelData.startsChannelData(first) {
            guard let (channel, range) = try? ChannelData.parse(bytes), let peer = channels[channel] else { return [] }
            return [.toPeer(peer, Array(bytes[range]))]
        }
        guard let message = try? STUNMessage(parsing: bytes) else { return [] }
        let method = message.type.method
        if message.type.messageClass == .indication {
            guard method == STUNMessageType.sendMethod, case .xorPeerAddress(let peer)? = message.attribute(.xorPeerAddress),
                  case .data(let payload)? = message.attribute(.data), permitted.contains(peer.ip)
            else { return [] }
            return [.toPeer(peer, payload)]
        }
        guard message.type.messageClass == .request else { return [] }
        if method == STUNMessageType.bindingMethod {
            requests.append("Binding")
            return [.toClient(answer(message, .successResponse, [.xorMappedAddress(mapped)], signed: false))]
        }
        guard message.hasValidIntegrity(key: key) else {
            requests.append("unauthenticated")
            return [.toClient(answer(message, .errorResponse, [
                .errorCode(code: 401, reason: "Unauthorized"), .realm(Self.realm), .nonce(Self.nonce),
            ], signed: false))]
        }
        switch method {
        case STUNMessageType.allocateMethod:
            requests.append("Allocate")
            return [.toClient(answer(message, .successResponse, [
                .xorRelayedAddress(relayed), .xorMappedAddress(mapped), .lifetime(600),
            ], signed: true))]
        case STUNMessageType.refreshMethod:
            if case .lifetime(0)? = message.attribute(.lifetime) { released = true }
            requests.append("Refresh")
            return [.toClient(answer(message, .successResponse, [.lifetime(600)], signed: true))]
        case STUNMessageType.createPermissionMethod:
            guard case .xorPeerAddress(let peer)? = message.attribute(.xorPeerAddress) else { return [] }
            requests.append("CreatePermission \(peer.ip)")
            permitted.insert(peer.ip)
            return [.toClient(answer(message, .successResponse, [], signed: true))]
        case STUNMessageType.channelBindMethod:
            guard case .xorPeerAddress(let peer)? = message.attribute(.xorPeerAddress),
                  case .channelNumber(let channel)? = message.attribute(.channelNumber) else { return [] }
            requests.append("ChannelBind \(channel) \(peer)")
            channels[channel] = peer
            permitted.insert(peer.ip)
            return [.toClient(answer(message, .successResponse, [], signed: true))]
        default:
            return []
        }
    }

    /// A datagram a peer sent to `relayed`: what reaches the client, nil when no permission lets it through.
    func fromPeer(_ payload: [UInt8], peer: TransportAddress) -> [UInt8]? {
        guard permitted.contains(peer.ip) else { return nil }
        if let channel = channels.first(where: { $0.value == peer })?.key {
            return try? ChannelData.message(channel: channel, payload: payload, padded: false)
        }
        let indication = STUNMessage(
            type: STUNMessageType(method: STUNMessageType.dataMethod, messageClass: .indication),
            transactionID: STUNTransactionID(high: 5, low: 6), attributes: [.xorPeerAddress(peer), .data(payload)])
        return try? indication.serialized(fingerprint: true)
    }

    private func answer(_ request: STUNMessage, _ messageClass: STUNClass, _ attributes: [STUNAttribute], signed: Bool) -> [UInt8] {
        let response = STUNMessage(
            type: STUNMessageType(method: request.type.method, messageClass: messageClass),
            transactionID: request.transactionID, attributes: attributes)
        return (try? response.serialized(integrityKey: signed ? key : nil, fingerprint: true)) ?? []
    }
}
