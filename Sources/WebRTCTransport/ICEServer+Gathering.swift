import WebRTC
import NIOPosix
import STUN
import TURN

#if canImport(Glibc)
import Glibc
#endif

extension ICEServer {
    /// The server for an `ICEGatherer`: its host name resolved once (IPv4), the credential attached for TURN.
    /// - Throws: `ICEServerUnusable` when the server is unusable (`unusableReason`) or its name does not resolve.
    package func gathererServer(afterOffer: Bool = false) async throws(ICEServerUnusable) -> ICEGatherer.Server {
        if let reason = unusableReason(afterOffer: afterOffer) { throw ICEServerUnusable(uri: uri, reason: reason) }
        let ip: IPAddress
        do {
            let host = self.host
            ip = try await NIOThreadPool.singleton.runIfActive { try Self.resolveIPv4(host) }
        } catch {
            throw ICEServerUnusable(uri: uri, reason: "\(error)")
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

    /// Why a host name did not resolve.
    struct ResolutionFailure: Error, CustomStringConvertible {
        var description: String
    }

    /// The first IPv4 address of `host` (an IPv4 literal as it is). The corresponding C function is `getaddrinfo`.
    package static func resolveIPv4(_ host: String) throws -> IPAddress {
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

/// An ICE server that cannot be gathered from: its URI (never the credential) and why.
package struct ICEServerUnusable: Error, Hashable, Sendable, CustomStringConvertible {
    /// The server's canonical URI.
    package var uri: String
    /// Why (unsupported, or its name did not resolve).
    package var reason: String

    package init(uri: String, reason: String) {
        self.uri = uri
        self.reason = reason
    }

    package var description: String { "ICE server \(PeerText.excerpt(uri)): \(PeerText.excerpt(reason, limit: 2 * PeerText.maximumExcerptLength))" }
}
