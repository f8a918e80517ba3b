public import MediaTime
public import STUN

/// Asks a STUN server where it sees this socket (RFC 8489 Binding): the server-reflexive address ICE offers as a
/// `srflx` candidate behind a NAT. Sans-IO, as `TURNClient` is: `start`, then the server's datagrams into
/// `handle(_:now:)` and time into `handleTimeout(now:)`; out come `pollTransmit()`, `pollTimeout()` and `result`.
///
/// The request carries FINGERPRINT and no credential (a public STUN server needs none). Over UDP it is repeated at
/// RTO, 2 RTO, 4 RTO... as RFC 8489 section 6.2.1 says; the answer must echo the transaction ID and carry
/// XOR-MAPPED-ADDRESS (or, from an RFC 3489-era server, MAPPED-ADDRESS).
public struct STUNBindingClient: Sendable {
    /// How the exchange ended.
    public enum Result: Sendable, Equatable {
        /// The address the server saw.
        case mapped(TransportAddress)
        /// No usable answer: an error response, or none within the retransmission schedule.
        case failed(TURNError)
    }

    /// The server.
    public let server: TransportAddress
    /// The first retransmission timeout; doubled after each try.
    public var retransmissionTimeout: Duration { schedule.retransmissionTimeout }
    /// Transmissions in all (RFC 8489 Rc, 1-16); the last waits 16 RTO (Rm).
    public var maximumTransmissions: Int { schedule.transmissions }
    private let schedule: RetransmissionSchedule
    /// How it ended; nil while waiting.
    public private(set) var result: Result?
    /// Answers dropped: another transaction's, malformed, or without a mapped address.
    public private(set) var messagesIgnored = 0

    private var random: SplitMix64
    private var request: [UInt8] = []
    private var transactionID: STUNTransactionID?
    private var transmissions = 0
    private var nextRetransmit: MonotonicTime?
    private var deadline: MonotonicTime?
    private var startedAt = MonotonicTime.zero
    private var outgoing: [UInt8]?

    /// Creates a client; nothing is sent before `start`.
    /// - Parameters:
    ///   - server: The STUN server's address.
    ///   - retransmissionTimeout: RTO (500 ms by default).
    ///   - maximumTransmissions: Rc (7 by default: 39.5 s in all).
    ///   - generator: The source of the transaction ID.
    public init(
        server: TransportAddress, retransmissionTimeout: Duration = .milliseconds(500), maximumTransmissions: Int = 7,
        using generator: inout some RandomNumberGenerator
    ) {
        self.server = server
        schedule = RetransmissionSchedule(retransmissionTimeout: retransmissionTimeout, transmissions: maximumTransmissions)
        random = SplitMix64(seed: generator.next())
    }

    /// Creates a client drawing its transaction ID from the system's generator.
    /// - Parameter server: The STUN server's address.
    public init(server: TransportAddress) {
        var generator = SystemRandomNumberGenerator()
        self.init(server: server, using: &generator)
    }

    /// Sends the Binding request.
    /// - Parameter now: The current time.
    public mutating func start(now: MonotonicTime) {
        guard transactionID == nil else { return }
        let id = STUNTransactionID.random(using: &random)
        transactionID = id
        startedAt = now
        // A Binding request with FINGERPRINT only: 28 bytes, which cannot fail to serialize.
        request = (try? STUNMessage(type: .bindingRequest, transactionID: id).serialized(fingerprint: true)) ?? []
        outgoing = request
        transmissions = 1
        nextRetransmit = schedule.nextTransmission(after: 1, now: now)
        deadline = now + schedule.timeout
    }

    /// Takes a datagram from the server.
    /// - Parameters:
    ///   - bytes: The datagram.
    ///   - now: The current time.
    public mutating func handle(_ bytes: some Collection<UInt8>, now: MonotonicTime) {
        guard result == nil, let transactionID, let message = try? STUNMessage(parsing: bytes),
              message.transactionID == transactionID, message.type.method == STUNMessageType.bindingMethod
        else {
            messagesIgnored += 1
            return
        }
        switch message.type.messageClass {
        case .successResponse:
            if let mapped = message.xorMappedAddress {
                finish(.mapped(mapped))
            } else if case .mappedAddress(let mapped) = message.attribute(.mappedAddress) {
                finish(.mapped(mapped))
            } else {
                messagesIgnored += 1
            }
        case .errorResponse:
            let (code, reason) = message.errorCode ?? (0, "")
            finish(.failed(.refused(method: "Binding", code: code, reason: reason)))
        case .request, .indication:
            messagesIgnored += 1
        }
    }

    /// Repeats the request or gives up, as due.
    /// - Parameter now: The current time.
    public mutating func handleTimeout(now: MonotonicTime) {
        guard result == nil else { return }
        if let deadline, deadline <= now {
            finish(.failed(.timedOut(method: "Binding", after: deadline - startedAt)))
            return
        }
        if let retransmit = nextRetransmit, retransmit <= now {
            outgoing = request
            transmissions += 1
            nextRetransmit = schedule.nextTransmission(after: transmissions, now: now)
        }
    }

    /// The request to send to `server`, when one is due.
    public mutating func pollTransmit() -> [UInt8]? {
        defer { outgoing = nil }
        return outgoing
    }

    /// When `handleTimeout` is next due; nil once finished.
    public func pollTimeout() -> MonotonicTime? {
        guard result == nil, let deadline else { return nil }
        return nextRetransmit.map { min($0, deadline) } ?? deadline
    }

    private mutating func finish(_ result: Result) {
        self.result = result
        outgoing = nil
        nextRetransmit = nil
        deadline = nil
    }
}
