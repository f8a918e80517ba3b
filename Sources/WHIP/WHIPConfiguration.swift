public import WebRTC
import HTTPRequester
/// Where and how to publish with WHIP (RFC 9725).
///
/// `https://` endpoints are reached over TLS (1.2 or later): the certificate chain is verified against the system's
/// trust store plus `caFile`, and the host name against the certificate (SNI is sent for a name); there is no way
/// to turn verification off. `http://` is plain HTTP/1.1 (the media itself is always DTLS-SRTP); a bearer token is
/// sent over `http://` only to a loopback host (`WHIPError.tokenRequiresHTTPS` otherwise).
public struct WHIPConfiguration: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The WHIP endpoint, e.g. `https://sfu.example/whip/endpoint/room1` or `http://127.0.0.1:7080/whip`.
    public var url: String
    /// The bearer token sent as `Authorization: Bearer ...`; never printed or logged. It is sent again after a
    /// redirect only when the redirect stays on the same scheme, host and port (as curl does), and never over
    /// `http://` to a host that is not loopback.
    public var token: String?
    /// A PEM file of CA certificates trusted for `https://` endpoints in addition to the system's trust store (a
    /// private CA, a test CA); nil: the system's trust store only.
    public var caFile: String?
    /// The most 307/308 redirects followed for one request (RFC 9725 section 4.6).
    public var maximumRedirects = 5
    /// How long one HTTP request (connect, send, whole reply) may take.
    public var requestTimeout: Duration = .seconds(10)
    /// The largest reply body read (an SDP answer is a few KiB).
    public var maximumResponseSize = 256 * 1024
    /// How long ICE and DTLS may take to connect after the answer.
    public var connectTimeout: Duration = .seconds(20)
    /// STUN and TURN servers to gather server-reflexive and relayed candidates from before the offer (the `urls` of
    /// an `RTCIceServer`; `--ice-server`): `stun:` and `turn:` over UDP, TURN with its username and credential. Their
    /// candidates go into the offer; gathering from each takes at most `gatheringTimeout`.
    public var iceServers: [ICEServer] = []
    /// How long gathering from one ICE server may take before the offer goes without its candidates.
    public var gatheringTimeout: Duration = .seconds(5)
    /// Whether the TURN servers the endpoint offers in its 201's `Link` headers (RFC 9725 section 4.6) are used too:
    /// known only with the answer, their relayed candidates are not in the offer; the endpoint learns them as
    /// peer-reflexive when our checks arrive from them.
    public var usesEndpointICEServers = true

    /// The most characters of a reply body quoted in an error.
    public static let excerptLength = 200
    /// The longest token accepted.
    public static let maximumTokenLength = 4096

    /// Creates a configuration.
    /// - Parameters:
    ///   - url: The endpoint's `https://` or `http://` URL.
    ///   - token: The bearer token, if the endpoint requires one.
    public init(url: String, token: String? = nil) {
        self.url = url
        self.token = token
    }

    /// The URL and whether a token is set; never the token itself.
    public var description: String {
        "WHIPConfiguration(url: \(url), token: \(token == nil ? "none" : "<redacted>"), caFile: \(caFile ?? "none"), maximumRedirects: "
            + "\(maximumRedirects), requestTimeout: \(requestTimeout), connectTimeout: \(connectTimeout), iceServers: "
            + "[\(iceServers.map(\.description).joined(separator: ", "))])"
    }

    /// As `description`: the token is redacted in debug output too.
    public var debugDescription: String { description }

    /// Checks the values before anything is sent.
    /// - Throws: `WHIPError.invalidURL`/`.unsupportedScheme` for the URL, `.tokenRequiresHTTPS` for a token with an
    ///   `http://` URL to a host that is not loopback, `.invalidURL` for a token that cannot be a header value or
    ///   bounds out of range, `.iceServer` for an ICE server that cannot be used. (The CA file is read by
    ///   `WHIPClient.init`; ICE server host names are resolved by the publisher.)
    public func validate() throws(WHIPError) {
        let endpoint: HTTPURL
        do {
            endpoint = try HTTPURL(parsing: url)
        } catch {
            throw WHIPError(error)
        }
        if let token {
            guard !token.isEmpty, token.utf8.count <= Self.maximumTokenLength,
                  token.unicodeScalars.allSatisfy({ $0.value >= 0x21 && $0.value <= 0x7E })
            else {
                throw .invalidURL("the token must be 1-\(Self.maximumTokenLength) visible ASCII characters")
            }
            guard endpoint.isHTTPS || endpoint.isLoopback else { throw .tokenRequiresHTTPS(url: endpoint.description) }
        }
        if let caFile, caFile.isEmpty { throw .invalidCAFile(path: caFile, reason: "the path is empty") }
        guard (0...20).contains(maximumRedirects) else { throw .invalidURL("maximum redirects must be 0-20") }
        guard requestTimeout > .zero, requestTimeout <= .seconds(600) else {
            throw .invalidURL("the request timeout must be more than 0 and at most 600 s")
        }
        guard connectTimeout > .zero, connectTimeout <= .seconds(600) else {
            throw .invalidURL("the connect timeout must be more than 0 and at most 600 s")
        }
        for server in iceServers {
            if let reason = server.unusableReason() { throw .iceServer(uri: server.uri, reason: reason) }
        }
        guard gatheringTimeout > .zero, gatheringTimeout <= .seconds(60) else {
            throw .invalidURL("the ICE gathering timeout must be more than 0 and at most 60 s")
        }
        guard (1024...(16 << 20)).contains(maximumResponseSize) else {
            throw .invalidURL("the maximum response size must be 1 KiB-16 MiB")
        }
    }
}
