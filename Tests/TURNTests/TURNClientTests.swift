import MediaTime
import STUN
import Testing
import TURN

/// The TURN client's state machine against scripted server answers on a virtual clock: authentication, the
/// bounded retries of every refusal the issue lists, forged answers, retransmissions, refreshes, permissions,
/// channels and framing.
@Suite struct TURNClientTests {
    static let server = TransportAddress(ipString: "192.0.2.10", port: 3478)!
    static let relayed = TransportAddress(ipString: "192.0.2.10", port: 49_152)!
    static let mapped = TransportAddress(ipString: "198.51.100.4", port: 40_000)!
    static let peer = TransportAddress(ipString: "203.0.113.7", port: 5_000)!
    static let credential = LongTermCredential(username: "alice", password: "s3cret-Pa55")
    static let realm = "example.org"

    /// A client with a fixed seed.
    static func client(_ transport: TURNClientConfiguration.Transport = .udp) -> TURNClient {
        var generator = SplitMix64(seed: 42)
        return TURNClient(
            configuration: TURNClientConfiguration(server: server, credential: credential, transport: transport),
            using: &generator)
    }

    static func time(_ seconds: Double) -> MonotonicTime { MonotonicTime(nanoseconds: Int64(seconds * 1e9)) }

    /// The server's answer to `request`: its class, its attributes, signed with `key` (nil: unsigned).
    static func answer(
        _ request: [UInt8], _ messageClass: STUNClass, _ attributes: [STUNAttribute], key: [UInt8]?
    ) throws -> [UInt8] {
        let parsed = try STUNMessage(parsing: request)
        let response = STUNMessage(
            type: STUNMessageType(method: parsed.type.method, messageClass: messageClass),
            transactionID: parsed.transactionID, attributes: attributes)
        return try response.serialized(integrityKey: key, fingerprint: true)
    }

    static var key: [UInt8] { credential.key(realm: realm) }

    /// Takes the one request the client has to send.
    static func request(_ client: inout TURNClient) throws -> [UInt8] {
        let next = client.pollTransmit()
        let request = try #require(next)
        #expect(client.pollTransmit() == nil)
        return request
    }

    /// Runs the challenge and the allocation; returns the allocated client at `time(0)`.
    static func allocated(_ transport: TURNClientConfiguration.Transport = .udp) throws -> TURNClient {
        var client = client(transport)
        client.start(now: time(0))
        let first = try request(&client)
        client.handle(try answer(first, .errorResponse, [
            .errorCode(code: 401, reason: "Unauthorized"), .realm(realm), .nonce("n1"),
        ], key: nil), now: time(0))
        let second = try request(&client)
        client.handle(try answer(second, .successResponse, [
            .xorRelayedAddress(relayed), .xorMappedAddress(mapped), .lifetime(600),
        ], key: key), now: time(0))
        #expect(client.pollEvent() == .allocated(relayed: relayed, mapped: mapped, lifetime: .seconds(600)))
        return client
    }

    @Test func theChallengeIsAnsweredWithTheLongTermCredential() throws {
        var client = Self.client()
        client.start(now: Self.time(0))
        let first = try STUNMessage(parsing: try Self.request(&client))
        #expect(first.type == STUNMessageType(method: STUNMessageType.allocateMethod, messageClass: .request))
        #expect(first.attribute(.requestedTransport) == .requestedTransport(17))
        #expect(first.username == nil && !first.hasIntegrity)

        client.handle(try Self.answer(try first.serialized(), .errorResponse, [
            .errorCode(code: 401, reason: "Unauthorized"), .realm(Self.realm), .nonce("n1"),
        ], key: nil), now: Self.time(0.01))
        let secondBytes = try Self.request(&client)
        let second = try STUNMessage(parsing: secondBytes)
        #expect(second.transactionID != first.transactionID)
        #expect(second.username == "alice")
        #expect(second.attribute(.realm) == .realm(Self.realm))
        #expect(second.attribute(.nonce) == .nonce("n1"))
        #expect(second.hasValidIntegrity(key: Self.key))
        // The password itself never travels.
        #expect(!String(decoding: secondBytes, as: UTF8.self).contains("s3cret-Pa55"))

        client.handle(try Self.answer(secondBytes, .successResponse, [
            .xorRelayedAddress(Self.relayed), .xorMappedAddress(Self.mapped), .lifetime(300),
        ], key: Self.key), now: Self.time(0.02))
        #expect(client.pollEvent() == .allocated(relayed: Self.relayed, mapped: Self.mapped, lifetime: .seconds(300)))
        #expect(client.state == .allocated(relayed: Self.relayed))
        #expect(client.relayedAddress == Self.relayed && client.mappedAddress == Self.mapped)
        // Refreshed a minute before the 300 s end.
        #expect(client.pollTimeout() == Self.time(0.02) + .seconds(240))
    }

    @Test func unsignedAndForgedSuccessesAreIgnoredAndTheRequestIsRepeated() throws {
        var client = Self.client()
        client.start(now: Self.time(0))
        let first = try Self.request(&client)
        client.handle(try Self.answer(first, .errorResponse, [
            .errorCode(code: 401, reason: "Unauthorized"), .realm(Self.realm), .nonce("n1"),
        ], key: nil), now: Self.time(0))
        let second = try Self.request(&client)
        let forged: [STUNAttribute] = [.xorRelayedAddress(TransportAddress(ipString: "6.6.6.6", port: 6)!), .lifetime(600)]
        client.handle(try Self.answer(second, .successResponse, forged, key: nil), now: Self.time(0.1))
        client.handle(try Self.answer(second, .successResponse, forged, key: Array("wrong".utf8)), now: Self.time(0.1))
        #expect(client.pollEvent() == nil)
        #expect(client.state == .allocating)
        #expect(client.counters.messagesIgnored == 2)
        // Still waiting: the request goes again at RTO.
        client.handleTimeout(now: Self.time(0.5))
        #expect(client.pollTransmit() == second)
        client.handle(try Self.answer(second, .successResponse, [.xorRelayedAddress(Self.relayed)], key: Self.key), now: Self.time(0.6))
        #expect(client.pollEvent() == .allocated(relayed: Self.relayed, mapped: nil, lifetime: .seconds(600)))
    }

    @Test func aCredentialRefusedTwiceFailsWithoutLooping() throws {
        var client = Self.client()
        client.start(now: Self.time(0))
        for _ in 0..<2 {
            let request = try Self.request(&client)
            client.handle(try Self.answer(request, .errorResponse, [
                .errorCode(code: 401, reason: "Unauthorized"), .realm(Self.realm), .nonce("n1"),
            ], key: nil), now: Self.time(0))
        }
        #expect(client.pollTransmit() == nil)
        let event = client.pollEvent()
        guard case .failed(let error) = try #require(event), case .unauthorized = error else {
            Issue.record("expected an unauthorized failure, state \(client.state)")
            return
        }
        #expect(error.description.contains("refused the credential"))
        #expect(!error.description.contains("s3cret"))
        #expect(client.counters.requestsSent == 2)
    }

    @Test func staleNoncesAreFollowedThreeTimesThenTheClientGivesUp() throws {
        var client = try Self.allocated()
        try client.createPermission(for: Self.peer, now: Self.time(1))
        for attempt in 1...4 {
            let request = try STUNMessage(parsing: try Self.request(&client))
            #expect(request.attribute(.nonce) == .nonce(attempt == 1 ? "n1" : "n\(attempt)"))
            client.handle(try Self.answer(try request.serialized(integrityKey: Self.key), .errorResponse, [
                .errorCode(code: 438, reason: "Stale Nonce"), .realm(Self.realm), .nonce("n\(attempt + 1)"),
            ], key: nil), now: Self.time(1))
        }
        #expect(client.pollTransmit() == nil)
        let event = client.pollEvent()
        guard case .peerRequestFailed(_, .staleNonceLoop(_, let attempts)) = try #require(event) else {
            Issue.record("expected a stale-nonce failure")
            return
        }
        #expect(attempts == 4)
        #expect(client.state == .allocated(relayed: Self.relayed))  // a peer's failure leaves the allocation
    }

    @Test(arguments: [(486, "Allocation Quota Reached"), (508, "Insufficient Capacity"), (442, "Unsupported Transport"),
                      (300, "Try Alternate")])
    func aRefusedAllocationFailsNamingTheCode(code: Int, meaning: String) throws {
        var client = Self.client()
        client.start(now: Self.time(0))
        let first = try Self.request(&client)
        client.handle(try Self.answer(first, .errorResponse, [
            .errorCode(code: 401, reason: "Unauthorized"), .realm(Self.realm), .nonce("n1"),
        ], key: nil), now: Self.time(0))
        let second = try Self.request(&client)
        client.handle(try Self.answer(second, .errorResponse, [.errorCode(code: code, reason: "x")], key: Self.key),
                      now: Self.time(0))
        let event = client.pollEvent()
        guard case .failed(let error) = try #require(event) else {
            Issue.record("no failure")
            return
        }
        #expect(error == .refused(method: "Allocate", code: code, reason: "x"))
        #expect(error.description.contains("\(code) \(meaning)"), "\(error)")
        client.handleTimeout(now: Self.time(100))
        #expect(client.pollTransmit() == nil)
        #expect(client.pollTimeout() == nil)
    }

    @Test func overUDPRequestsAreRepeatedAtDoublingIntervalsThenTimeOut() throws {
        var client = Self.client()
        client.start(now: Self.time(0))
        let first = try Self.request(&client)
        var sentAt: [Double] = [0]
        var now = 0.0
        while let next = client.pollTimeout() {
            now = Double(next.nanoseconds) / 1e9
            client.handleTimeout(now: next)
            while let bytes = client.pollTransmit() {
                #expect(bytes == first)
                sentAt.append(now)
            }
            if case .failed = client.state { break }
        }
        // RFC 8489 6.2.1: 0, 0.5, 1.5, 3.5, 7.5, 15.5, 31.5 s, and the last one waits 16 RTO: failure at 39.5 s.
        #expect(sentAt == [0, 0.5, 1.5, 3.5, 7.5, 15.5, 31.5])
        #expect(now == 39.5)
        #expect(client.pollEvent() == .failed(.timedOut(method: "Allocate", after: .milliseconds(39_500))))
    }

    @Test func overTCPRequestsAreSentOnceAndTimeOutAtTheSameSpan() throws {
        var client = Self.client(.tcp)
        client.start(now: Self.time(0))
        _ = try Self.request(&client)
        #expect(client.pollTimeout() == Self.time(39.5))
        client.handleTimeout(now: Self.time(39.4))
        #expect(client.pollTransmit() == nil)
        client.handleTimeout(now: Self.time(39.5))
        #expect(client.pollTransmit() == nil)
        #expect(client.pollEvent() == .failed(.timedOut(method: "Allocate", after: .milliseconds(39_500))))
    }

    @Test func theAllocationIsRefreshedAndALostOneIsReported() throws {
        var client = try Self.allocated()
        client.handleTimeout(now: Self.time(539))
        #expect(client.pollTransmit() == nil)
        client.handleTimeout(now: Self.time(540))
        let refresh = try STUNMessage(parsing: try Self.request(&client))
        #expect(refresh.type.method == STUNMessageType.refreshMethod)
        #expect(refresh.attribute(.lifetime) == .lifetime(600))
        #expect(refresh.hasValidIntegrity(key: Self.key))
        client.handle(try Self.answer(try refresh.serialized(integrityKey: Self.key), .successResponse, [.lifetime(600)],
                                      key: Self.key), now: Self.time(540))
        #expect(client.counters.refreshes == 1)
        #expect(client.pollTimeout() == Self.time(1080))
        client.handleTimeout(now: Self.time(1080))
        let second = try Self.request(&client)
        client.handle(try Self.answer(second, .errorResponse, [.errorCode(code: 437, reason: "Allocation Mismatch")],
                                      key: Self.key), now: Self.time(1080))
        #expect(client.pollEvent() == .failed(.refused(method: "Refresh", code: 437, reason: "Allocation Mismatch")))
        #expect(throws: TURNError.noAllocation) { try client.createPermission(for: Self.peer, now: Self.time(1081)) }
    }

    @Test func permissionsAndChannelsAreInstalledRefreshedAndFrameTheData() throws {
        var client = try Self.allocated()
        #expect(throws: TURNError.noPermission(Self.peer.ip)) { _ = try client.wrap([1, 2, 3], for: Self.peer) }

        try client.createPermission(for: Self.peer, now: Self.time(1))
        let permission = try STUNMessage(parsing: try Self.request(&client))
        #expect(permission.type.method == STUNMessageType.createPermissionMethod)
        #expect(permission.attribute(.xorPeerAddress) == .xorPeerAddress(TransportAddress(ip: Self.peer.ip, port: 0)))
        client.handle(try Self.answer(try permission.serialized(integrityKey: Self.key), .successResponse, [], key: Self.key),
                      now: Self.time(1))
        #expect(client.pollEvent() == .permissionInstalled(Self.peer.ip))

        // With a permission only: a Send indication.
        let send = try STUNMessage(parsing: try client.wrap([1, 2, 3], for: Self.peer))
        #expect(send.type == STUNMessageType(method: STUNMessageType.sendMethod, messageClass: .indication))
        #expect(send.attribute(.xorPeerAddress) == .xorPeerAddress(Self.peer))
        #expect(send.attribute(.data) == .data([1, 2, 3]))

        try client.bindChannel(to: Self.peer, now: Self.time(2))
        let bind = try STUNMessage(parsing: try Self.request(&client))
        #expect(bind.attribute(.channelNumber) == .channelNumber(0x4000))
        #expect(bind.attribute(.xorPeerAddress) == .xorPeerAddress(Self.peer))
        client.handle(try Self.answer(try bind.serialized(integrityKey: Self.key), .successResponse, [], key: Self.key),
                      now: Self.time(2))
        #expect(client.pollEvent() == .channelBound(peer: Self.peer, channel: 0x4000))
        #expect(client.channel(for: Self.peer) == 0x4000)
        // Bound: ChannelData, not padded over UDP.
        #expect(try client.wrap([1, 2, 3], for: Self.peer) == [0x40, 0x00, 0x00, 0x03, 1, 2, 3])

        // Data from the peer both ways; from a stranger, or on an unbound channel, ignored.
        client.handle([0x40, 0x00, 0x00, 0x02, 9, 8], now: Self.time(3))
        #expect(client.pollEvent() == .data(from: Self.peer, payload: [9, 8]))
        client.handle([0x40, 0x01, 0x00, 0x02, 9, 8], now: Self.time(3))
        let stranger = TransportAddress(ipString: "203.0.113.99", port: 5_000)!
        for from in [Self.peer, stranger] {
            let indication = STUNMessage(
                type: STUNMessageType(method: STUNMessageType.dataMethod, messageClass: .indication),
                transactionID: STUNTransactionID(high: 1, low: 2), attributes: [.xorPeerAddress(from), .data([7])])
            client.handle(try indication.serialized(), now: Self.time(3))
        }
        #expect(client.pollEvent() == .data(from: Self.peer, payload: [7]))
        #expect(client.pollEvent() == nil)
        #expect(client.counters.messagesIgnored == 2)

        // Refreshes: the permission 240 s after it was installed, the channel 540 s after it was bound.
        client.handleTimeout(now: Self.time(241))
        let permissionRefresh = try STUNMessage(parsing: try Self.request(&client))
        #expect(permissionRefresh.type.method == STUNMessageType.createPermissionMethod)
        client.handle(try Self.answer(try permissionRefresh.serialized(integrityKey: Self.key), .successResponse, [],
                                      key: Self.key), now: Self.time(241))
        #expect(client.pollEvent() == nil)  // a refresh is not news
        // At 542 s: the allocation (at 540 s), the channel (bound at 2 s) and the permission again (refreshed at 241 s).
        client.handleTimeout(now: Self.time(542))
        var due: [STUNMessage] = []
        while let bytes = client.pollTransmit() { due.append(try STUNMessage(parsing: bytes)) }
        #expect(due.map(\.type.method).sorted() == [
            STUNMessageType.refreshMethod, STUNMessageType.createPermissionMethod, STUNMessageType.channelBindMethod,
        ])
        #expect(due.contains { $0.attribute(.channelNumber) == .channelNumber(0x4000) })
    }

    /// `receive` hands data back as a range of the message (read in place), for ChannelData and Data indications
    /// alike, with the same refusals as `handle`; everything else goes through `handle`.
    @Test func receiveLocatesTheDataInPlace() throws {
        var client = try Self.allocated()
        try client.bindChannel(to: Self.peer, now: Self.time(1))
        let bind = try Self.request(&client)
        // The answer goes through `receive` too: not data, so handled (the channel is confirmed).
        #expect(client.receive(try Self.answer(bind, .successResponse, [], key: Self.key), now: Self.time(1)) == nil)
        #expect(client.pollEvent() == .channelBound(peer: Self.peer, channel: 0x4000))
        #expect(client.peer(onChannel: 0x4000) == Self.peer)
        #expect(client.peer(onChannel: 0x4001) == nil)

        // ChannelData, with UDP's lack of padding and with a stream's padding after the data.
        let channelData: [UInt8] = [0x40, 0x00, 0x00, 0x03, 9, 8, 7]
        #expect(client.receive(channelData, now: Self.time(2)).map { [$0.peer.description, "\($0.data)"] }
                == [Self.peer.description, "4..<7"])
        #expect(client.receive(channelData + [0], now: Self.time(2))?.data == 4..<7)
        #expect(client.receive([0x40, 0x01, 0x00, 0x01, 9], now: Self.time(2)) == nil)  // an unbound channel
        #expect(client.receive([0x40, 0x00, 0x00, 0x09, 9], now: Self.time(2)) == nil)  // longer than it is
        #expect(client.pollEvent() == nil)

        // A Data indication from the permitted peer (the channel installed its permission): the DATA value's range.
        let stranger = TransportAddress(ipString: "203.0.113.99", port: 5_000)!
        var received: [Range<Int>?] = []
        for from in [Self.peer, stranger] {
            let indication = STUNMessage(
                type: STUNMessageType(method: STUNMessageType.dataMethod, messageClass: .indication),
                transactionID: STUNTransactionID(high: 1, low: 2), attributes: [.xorPeerAddress(from), .data([5, 6, 7, 8, 9])])
            let bytes = try indication.serialized(fingerprint: true)
            let result = client.receive(bytes, now: Self.time(3))
            received.append(result?.data)
            if let result { #expect(Array(bytes[result.data]) == [5, 6, 7, 8, 9] && result.peer == Self.peer) }
        }
        #expect(received == [36..<41, nil])  // 20-byte header, XOR-PEER-ADDRESS (4 + 8), DATA's header (4)
        #expect(client.pollEvent() == nil)
        #expect(client.counters.messagesIgnored == 2)  // the unbound channel, the stranger
        #expect(client.counters.malformed == 1)  // the overlong ChannelData
    }

    @Test func overAStreamChannelDataIsPaddedToFourBytes() throws {
        var client = try Self.allocated(.tcp)
        try client.bindChannel(to: Self.peer, now: Self.time(1))
        let bind = try Self.request(&client)
        client.handle(try Self.answer(bind, .successResponse, [], key: Self.key), now: Self.time(1))
        #expect(try client.wrap([1, 2, 3, 4, 5], for: Self.peer) == [0x40, 0x00, 0x00, 0x05, 1, 2, 3, 4, 5, 0, 0, 0])
    }

    @Test func closeReleasesTheAllocation() throws {
        var client = try Self.allocated()
        client.close(now: Self.time(5))
        let release = try STUNMessage(parsing: try Self.request(&client))
        #expect(release.attribute(.lifetime) == .lifetime(0))
        client.handle(try Self.answer(try release.serialized(integrityKey: Self.key), .successResponse, [.lifetime(0)],
                                      key: Self.key), now: Self.time(5))
        #expect(client.pollEvent() == .closed)
        #expect(client.state == .closed)
        #expect(client.pollTimeout() == nil)
    }

    @Test func garbageFromTheServerIsCountedAndChangesNothing() throws {
        var client = try Self.allocated()
        for bytes: [UInt8] in [[], [0xFF], [0x40, 0x00, 0x00, 0x09, 1], [0x00, 0x01, 0x00, 0x00], Array(repeating: 0, count: 20)] {
            client.handle(bytes, now: Self.time(1))
        }
        #expect(client.counters.malformed == 5)
        #expect(client.pollEvent() == nil)
        #expect(client.state == .allocated(relayed: Self.relayed))
    }
}

/// The STUN Binding client that finds the server-reflexive address.
@Suite struct STUNBindingClientTests {
    static let server = TransportAddress(ipString: "192.0.2.10", port: 3478)!
    static let mapped = TransportAddress(ipString: "198.51.100.4", port: 40_000)!

    static func client() -> STUNBindingClient {
        var generator = SplitMix64(seed: 7)
        return STUNBindingClient(server: server, using: &generator)
    }

    @Test func theMappedAddressIsTakenOnlyFromTheMatchingAnswer() throws {
        var client = Self.client()
        client.start(now: .zero)
        let bytes = client.pollTransmit()
        let request = try STUNMessage(parsing: try #require(bytes))
        #expect(request.type == .bindingRequest)
        #expect(request.attributes.map(\.type) == [.fingerprint])  // no credential
        let stranger = try STUNMessage(type: .bindingSuccess, transactionID: STUNTransactionID(high: 1, low: 1),
                                       attributes: [.xorMappedAddress(TransportAddress(ipString: "6.6.6.6", port: 6)!)]).serialized()
        client.handle(stranger, now: TURNClientTests.time(0.1))
        client.handle([1, 2, 3], now: TURNClientTests.time(0.1))
        #expect(client.result == nil && client.messagesIgnored == 2)
        let answer = try STUNMessage(type: .bindingSuccess, transactionID: request.transactionID,
                                     attributes: [.xorMappedAddress(Self.mapped)]).serialized()
        client.handle(answer, now: TURNClientTests.time(0.2))
        #expect(client.result == .mapped(Self.mapped))
        #expect(client.pollTimeout() == nil)
    }

    @Test func anUnansweredRequestIsRepeatedThenFails() throws {
        var client = Self.client()
        client.start(now: .zero)
        var sentAt: [Double] = []
        if client.pollTransmit() != nil { sentAt.append(0) }
        while let next = client.pollTimeout() {
            client.handleTimeout(now: next)
            if client.pollTransmit() != nil { sentAt.append(Double(next.nanoseconds) / 1e9) }
        }
        #expect(sentAt == [0, 0.5, 1.5, 3.5, 7.5, 15.5, 31.5])
        #expect(client.result == .failed(.timedOut(method: "Binding", after: .milliseconds(39_500))))
    }

    @Test func anErrorAnswerFailsNamingTheCode() throws {
        var client = Self.client()
        client.start(now: .zero)
        let bytes = client.pollTransmit()
        let request = try STUNMessage(parsing: try #require(bytes))
        client.handle(try STUNMessage(type: .bindingError, transactionID: request.transactionID,
                                      attributes: [.errorCode(code: 400, reason: "Bad Request")]).serialized(), now: .zero)
        #expect(client.result == .failed(.refused(method: "Binding", code: 400, reason: "Bad Request")))
    }
}
