import Foundation
import MediaTime
import STUN
import Testing
import TestSupport
import TURN

/// The TURN client against Debian's coturn (`turnserver`) on loopback, over UDP and TCP: allocation with the long-term
/// credential, a permission and a channel for a UDP peer, data both ways through the relay as Send/Data indications
/// and as ChannelData, a wrong password refused, and the release.
@Suite(.serialized) struct CoturnInteropTests {
    static let realm = "rtc-h264.test"
    static let credential = LongTermCredential(username: "alice", password: "s3cret-Pa55")

    /// A running turnserver on 127.0.0.1, relaying from 127.0.0.1.
    final class Server: Sendable {
        let process: ChildProcess
        let port: Int
        let directory: URL

        init() throws {
            guard let binary = ["/usr/bin/turnserver", "/usr/sbin/turnserver"].first(where: {
                FileManager.default.isExecutableFile(atPath: $0)
            }) else {
                throw Failure("turnserver not found: install coturn (apt-get install coturn; Tests/install-deps.sh does)")
            }
            // A port below the kernel's ephemeral range (32768-60999): no socket bound to port 0 can take it between
            // this check and coturn's bind (a port the kernel picked and this test freed could be handed to the
            // client's own socket, which then heard its own requests).
            port = TestPorts.reserve()
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("coturn-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let relayBase = 61_000 + (port % 200) * 20  // above the ephemeral range too
            process = try ChildProcess(executable: URL(fileURLWithPath: binary), arguments: [
                "-n", "--listening-ip=127.0.0.1", "--listening-port=\(port)", "--relay-ip=127.0.0.1",
                "--min-port=\(relayBase)", "--max-port=\(relayBase + 19)", "--lt-cred-mech",
                "--user=\(CoturnInteropTests.credential.username):\(CoturnInteropTests.credential.password)",
                "--realm=\(CoturnInteropTests.realm)", "--allow-loopback-peers", "--no-tls", "--no-dtls", "--no-cli",
                "--log-file=stdout", "--userdb=\(directory.path)/turndb.sqlite", "--pidfile=\(directory.path)/turn.pid",
            ])
        }

        func stop() async -> String {
            process.kill()
            let output = await process.finished()
            try? FileManager.default.removeItem(at: directory)
            return output.stdout + output.stderr
        }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// How the test reaches the server: a UDP socket or a TCP connection with its framer.
    final class Link: @unchecked Sendable {
        let udp: RawUDPSocket?
        let tcp: RawConnection?
        var framer = TURNStreamFramer()
        let serverPort: Int

        init(_ transport: TURNClientConfiguration.Transport, serverPort: Int) throws {
            self.serverPort = serverPort
            if transport == .udp {
                udp = try RawUDPSocket()
                tcp = nil
            } else {
                udp = nil
                tcp = try RawConnection(port: serverPort)
            }
        }

        func send(_ bytes: [UInt8]) throws {
            if let udp { try udp.send(bytes, toPort: serverPort) } else if tcp?.send(bytes: bytes) != true {
                throw Failure("the TCP connection to turnserver broke")
            }
        }

        func receive() throws -> [[UInt8]] {
            if let udp {
                var datagrams: [[UInt8]] = []
                while let (bytes, _) = udp.receive() { datagrams.append(bytes) }
                return datagrams
            }
            guard let tcp else { return [] }
            if case .data(let chunk) = tcp.receive(waiting: 0) { framer.append(chunk) }
            var frames: [[UInt8]] = []
            while let frame = try framer.nextFrame() { frames.append(frame) }
            return frames
        }
    }

    static let origin = ContinuousClock.now
    static func now() -> MonotonicTime {
        MonotonicTime(nanoseconds: (ContinuousClock.now - origin).saturatingNanoseconds)
    }

    /// Drives the client over the link until `until` returns a value for an event, or `seconds` pass.
    static func drive<T>(
        _ client: inout TURNClient, _ link: Link, seconds: Double = 30, until: (TURNEvent) -> T?
    ) async throws -> T? {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            while let bytes = client.pollTransmit() { try link.send(bytes) }
            for message in try link.receive() { client.handle(message, now: now()) }
            if let due = client.pollTimeout(), due <= now() { client.handleTimeout(now: now()) }
            while let event = client.pollEvent() {
                if let result = until(event) { return result }
            }
            try await Task.sleep(for: .milliseconds(2))
        }
        return nil
    }

    @Test(arguments: [TURNClientConfiguration.Transport.udp, .tcp])
    func dataCrossesTheRelayBothWaysAsIndicationsAndAsChannelData(transport: TURNClientConfiguration.Transport) async throws {
        let server = try Server()
        do {
            try await Self.exchange(server: server, transport: transport)
        } catch {
            let log = await server.stop()
            Issue.record("\(error)\nturnserver said:\n\(log.suffix(3000))")
            return
        }
        _ = await server.stop()
    }

    static func exchange(server: Server, transport: TURNClientConfiguration.Transport) async throws {
        let serverAddress = TransportAddress(ipString: "127.0.0.1", port: UInt16(server.port))!
        let peer = try RawUDPSocket()
        let peerAddress = TransportAddress(ipString: "127.0.0.1", port: UInt16(peer.port))!
        // coturn needs a moment before it answers (seconds on a loaded machine: it creates its SQLite database
        // first); a TCP connect fails until it listens, and its UDP listener opens with its TCP one. Wait for it over
        // TCP whatever the transport: a UDP Allocate sent before would be retransmitted only 15.5 s and 31.5 s later.
        var listening = false
        for _ in 0..<400 where !listening {
            listening = (try? RawConnection(port: server.port)) != nil
            if !listening { try await Task.sleep(for: .milliseconds(50)) }
        }
        guard listening else { throw Failure("turnserver did not accept a TCP connection within 20 s") }
        let link = try Link(transport, serverPort: server.port)
        // The RFC's timers (39.5 s) and a 30 s wait for each step: the suite shares two cores with hundreds of tests,
        // and this test's task may not run for seconds; on a quiet machine each step takes milliseconds.
        var client = TURNClient(configuration: TURNClientConfiguration(
            server: serverAddress, credential: credential, transport: transport))
        client.start(now: now())

        let relayed = try await drive(&client, link) { event -> TransportAddress? in
            if case .allocated(let relayed, let mapped, let lifetime) = event {
                #expect(mapped?.ip == IPAddress("127.0.0.1"))
                #expect(lifetime > .zero)
                return relayed
            }
            if case .failed(let error) = event { Issue.record("allocation failed: \(error)") }
            return nil
        }
        guard let relayed else { throw Failure("no allocation within 30 s (\(client.state))") }
        #expect(relayed.ip == IPAddress("127.0.0.1"))

        // A permission, then data through Send and Data indications.
        try client.createPermission(for: peerAddress, now: now())
        guard try await drive(&client, link, until: { $0 == .permissionInstalled(peerAddress.ip) ? true : nil }) == true
        else { throw Failure("no permission within 30 s") }
        try link.send(try client.wrap(Array("via a Send indication".utf8), for: peerAddress))
        let received = try await waitForDatagram(peer)
        #expect(received?.bytes == Array("via a Send indication".utf8))
        #expect(received?.port == Int(relayed.port), "the peer sees the relayed address")
        try peer.send(Array("back as a Data indication".utf8), toPort: Int(relayed.port))
        let back = try await drive(&client, link) { event -> [UInt8]? in
            if case .data(let from, let payload) = event, from == peerAddress { return payload }
            return nil
        }
        #expect(back == Array("back as a Data indication".utf8))

        // A channel, then ChannelData both ways (coturn pads it over TCP, and so do we).
        try client.bindChannel(to: peerAddress, now: now())
        let channel = try await drive(&client, link) { event -> UInt16? in
            if case .channelBound(let bound, let channel) = event, bound == peerAddress { return channel }
            return nil
        }
        #expect(channel == 0x4000)
        let odd = Array("five!".utf8)  // not a multiple of 4: padding over TCP
        try link.send(try client.wrap(odd, for: peerAddress))
        #expect(try await waitForDatagram(peer)?.bytes == odd)
        try peer.send(Array("as ChannelData".utf8), toPort: Int(relayed.port))
        let channelBack = try await drive(&client, link) { event -> [UInt8]? in
            if case .data(let from, let payload) = event, from == peerAddress { return payload }
            return nil
        }
        #expect(channelBack == Array("as ChannelData".utf8))

        // coturn answers a plain Binding request from the same kind of socket: the server-reflexive address.
        if transport == .udp {
            let probe = try RawUDPSocket()
            var binding = STUNBindingClient(server: serverAddress)
            binding.start(now: now())
            for _ in 0..<3000 where binding.result == nil {
                if let bytes = binding.pollTransmit() { try probe.send(bytes, toPort: server.port) }
                while let (bytes, _) = probe.receive() { binding.handle(bytes, now: now()) }
                if let due = binding.pollTimeout(), due <= now() { binding.handleTimeout(now: now()) }
                try await Task.sleep(for: .milliseconds(5))
            }
            #expect(binding.result == .mapped(TransportAddress(ipString: "127.0.0.1", port: UInt16(probe.port))!))
        }

        client.close(now: now())
        let closed = try await drive(&client, link) { $0 == .closed ? true : nil }
        #expect(closed == true)

        // The same server refuses a wrong password with a clear error and no loop.
        let wrongLink = try Link(transport, serverPort: server.port)
        var wrong = TURNClient(configuration: TURNClientConfiguration(
            server: serverAddress, credential: LongTermCredential(username: "alice", password: "wrong"), transport: transport))
        wrong.start(now: now())
        let refusal = try await drive(&wrong, wrongLink) { event -> TURNError? in
            if case .failed(let error) = event { return error }
            return nil
        }
        guard case .unauthorized = refusal else { throw Failure("a wrong password gave \(String(describing: refusal))") }
        // Two transactions (the unauthenticated Allocate, then the authenticated one), however often a loaded
        // machine made UDP retransmit them.
        #expect(wrong.counters.transactionsStarted == 2)
    }

    static func waitForDatagram(_ socket: RawUDPSocket) async throws -> (bytes: [UInt8], port: Int)? {
        for _ in 0..<3000 {
            if let datagram = socket.receive() { return datagram }
            try await Task.sleep(for: .milliseconds(2))
        }
        return nil
    }
}
