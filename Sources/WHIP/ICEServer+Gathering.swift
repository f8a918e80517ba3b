import NIOPosix
import STUN
import TURN
import WebRTC

#if canImport(Glibc)
import Glibc
#endif

extension ICEServer {
    /// Why the publisher cannot gather from this server, or nil when it can: STUN (`stun:`), and TURN with a username
    /// and a credential over UDP (`turn:`), TCP (`turn:...?transport=tcp`) or TLS (`turns:`), on IPv4. Never quotes
    /// the credential.
    /// - Parameters:
    ///   - afterOffer: Whether the offer is already sent (a server from the endpoint's `Link` headers): a
    ///     server-reflexive candidate found then could only be signalled by trickle ICE, so STUN is of no use.
    public func unusableReason(afterOffer: Bool = false) -> String? {
        switch scheme {
        case .stuns: return "STUN over TLS (stuns:) is not supported: use stun:"
        case .stun where afterOffer:
            return "a server-reflexive candidate found after the offer cannot be signalled without trickle ICE"
        case .stun: break
        case .turns where transport == .udp:
            return "TURN over DTLS (turns:...?transport=udp) is not supported: use turns: (TLS over TCP)"
        case .turn, .turns:
            if username == nil || credential == nil {
                return "a \(scheme.rawValue): server needs a username and a credential (--ice-username, --ice-credential)"
            }
        }
        if Self.isIPv6Address(Substring(host)) { return "IPv6 ICE servers are not supported yet (the socket is IPv4)" }
        return nil
    }

    /// The server for an `ICEGatherer`: its host name resolved once (IPv4), the credential attached for TURN.
    /// - Throws: `WHIPError.iceServer` when the server is unusable (`unusableReason`) or its name does not resolve.
    func gathererServer(afterOffer: Bool = false) async throws(WHIPError) -> ICEGatherer.Server {
        if let reason = unusableReason(afterOffer: afterOffer) { throw .iceServer(uri: uri, reason: reason) }
        let ip: IPAddress
        do {
            let host = self.host
            ip = try await NIOThreadPool.singleton.runIfActive { try Self.resolveIPv4(host) }
        } catch {
            throw .iceServer(uri: uri, reason: "\(error)")
        }
        let address = TransportAddress(ip: ip, port: UInt16(port))  // 1...65535 by the parser
        switch scheme {
        case .turn, .turns:
            return ICEGatherer.Server(
                address: address, kind: .turn(LongTermCredential(username: username ?? "", password: credential ?? "")),
                name: uri, transport: turnTransport)
        default:
            return ICEGatherer.Server(address: address, kind: .stun, name: uri)
        }
    }

    /// How a TURN server is reached: UDP, TCP (`?transport=tcp`) or TLS (`turns:`).
    var turnTransport: TURNClientConfiguration.Transport {
        if scheme == .turns { return .tls }
        return transport == .tcp ? .tcp : .udp
    }

    /// Why a host name did not resolve.
    struct ResolutionFailure: Error, CustomStringConvertible {
        var description: String
    }

    /// The first IPv4 address of `host` (an IPv4 literal as it is). The corresponding C function is `getaddrinfo`.
    static func resolveIPv4(_ host: String) throws -> IPAddress {
        if let ip = IPAddress(host), !ip.isIPv6 { return ip }
        var hints = addrinfo()
        hints.ai_family = AF_INET
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &result)
        guard status == 0, let first = result, let address = first.pointee.ai_addr else {
            let reason = status == 0 ? "no address" : String(cString: gai_strerror(status))
            throw ResolutionFailure(description: "the host name '\(host)' does not resolve to an IPv4 address (\(reason))")
        }
        defer { freeaddrinfo(result) }
        let raw = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt32(bigEndian: $0.pointee.sin_addr.s_addr) }
        return .v4(raw)
    }
}
