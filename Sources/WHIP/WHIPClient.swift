import HTTPRequester
import WebRTC

/// The HTTP side of WHIP (RFC 9725): POST the SDP offer to the endpoint, follow 307/308 redirects (bounded), read the
/// 201's `Location` and answer, and DELETE the session resource at the end.
///
/// ```swift
/// let client = try WHIPClient(configuration: WHIPConfiguration(url: "http://127.0.0.1:7080/whip", token: token))
/// let session = try await client.publish(offer: offer.sdp)   // 201 Created: session.answer, session.resourceURL
/// ...
/// try await client.terminate(session)                         // DELETE
/// ```
///
/// Errors are typed (`WHIPError`): 401/403 are `.authenticationFailed`, other statuses `.httpStatus` with a short
/// excerpt of the reply; the token is never part of a message. `https://` is verified TLS (see `WHIPConfiguration`);
/// a token never goes over `http://` to a host that is not loopback, a redirect included.
public struct WHIPClient: Sendable {
    /// The configuration.
    public let configuration: WHIPConfiguration
    package let endpoint: HTTPURL
    /// Trust roots loaded once, for the endpoint and any `https://` redirect.
    package let tls: TLSClientContext

    /// The media type of offers and answers (RFC 9725 section 4.2).
    public static let sdpContentType = "application/sdp"

    /// Creates a client (nothing is sent yet).
    /// - Parameters:
    ///   - configuration: The endpoint and token.
    /// - Throws: `WHIPError` when the configuration is invalid (`.tokenRequiresHTTPS` for a token over `http://` to
    ///   a host that is not loopback), `.invalidCAFile` when the CA file cannot be read.
    public init(configuration: WHIPConfiguration) throws(WHIPError) {
        try configuration.validate()
        self.configuration = configuration
        do {
            endpoint = try HTTPURL(parsing: configuration.url)
        } catch {
            throw WHIPError(error)
        }
        do {
            tls = try TLSClientContext(caFile: configuration.caFile)
        } catch {
            throw WHIPError(error)
        }
    }

    /// POSTs the offer and returns the session the endpoint created.
    /// - Parameters:
    ///   - offer: Our SDP offer.
    /// - Returns: The session (resource URL, answer, and the ICE servers of the 201's `Link` headers; a malformed
    ///   link is skipped and explained in `WHIPSession.iceServerProblems`, never an error).
    /// - Throws: `WHIPError`: `.authenticationFailed` for 401/403, `.httpStatus` for other statuses,
    ///   `.tooManyRedirects`, `.badLocation` without a usable `Location`, `.badAnswer` when the body is not an SDP
    ///   answer, `.connectionFailed`/`.timedOut`/`.responseTooLarge`.
    public func publish(offer: String) async throws(WHIPError) -> WHIPSession {
        let (response, url) = try await exchange(
            method: "POST", url: endpoint, body: Array(offer.utf8),
            headers: [("Content-Type", Self.sdpContentType), ("Accept", Self.sdpContentType)])
        guard response.status == 201 else { throw error(for: response, method: "POST") }
        guard let location = response.header("Location") else { throw .badLocation("the 201 reply has no Location header") }
        let resource: HTTPURL
        do {
            resource = try url.resolving(location)
        } catch {
            throw WHIPError(error)
        }
        let contentType = response.header("Content-Type")?.split(separator: ";").first?.trimmingCharacters ?? ""
        guard contentType.lowercased() == Self.sdpContentType else {
            throw .badAnswer("Content-Type is '\(HTTPURL.printable(contentType))', not \(Self.sdpContentType)")
        }
        guard !response.body.isEmpty else { throw .badAnswer("the body is empty") }
        guard let answer = String(validating: response.body, as: UTF8.self) else { throw .badAnswer("the body is not UTF-8") }
        guard answer.hasPrefix("v=0") else { throw .badAnswer("the body does not start with v=0: '\(excerpt(response.body))'") }
        // The endpoint's STUN and TURN servers (RFC 9725 section 4.6): every Link field, in order.
        let links = ICEServerLinks(fieldValues: response.headers.lazy.filter { $0.name.lowercased() == "link" }.map(\.value))
        return WHIPSession(resourceURL: resource.description, answer: answer, etag: response.header("ETag"),
                           iceServers: links.servers, iceServerProblems: links.problems, resource: resource)
    }

    /// Restarts ICE (RFC 9725 section 4.4): PATCHes the session resource with our new credentials and candidates
    /// (`Content-Type: application/trickle-ice-sdpfrag`, `If-Match: "*"`, quoted as RFC 9725's examples write it) and
    /// reads the endpoint's new credentials (and candidates, when it gives any) from the `200`.
    /// - Parameters:
    ///   - session: The session `publish` returned.
    ///   - fragment: Our new ICE credentials and candidates.
    /// - Returns: The endpoint's fragment (its credentials are always there) and the session's new `ETag`.
    /// - Throws: `WHIPError`: `.httpStatus` for another status (`405`/`501`: the endpoint does not restart ICE),
    ///   `.badAnswer` for a reply that is not a fragment with credentials, connection errors.
    public func restartICE(_ session: WHIPSession, fragment: TrickleICEFragment) async throws(WHIPError)
        -> (answer: TrickleICEFragment, etag: String?)
    {
        let (response, _) = try await exchange(
            method: "PATCH", url: session.resource, body: Array(fragment.sdp.utf8),
            headers: [("Content-Type", TrickleICEFragment.mediaType), ("If-Match", "\"*\"")])
        guard response.status == 200 else { throw error(for: response, method: "PATCH") }
        let contentType = response.header("Content-Type")?.split(separator: ";").first?.trimmingCharacters ?? ""
        guard contentType.lowercased() == TrickleICEFragment.mediaType else {
            throw .badAnswer("the ICE restart reply's Content-Type is '\(HTTPURL.printable(contentType))', not \(TrickleICEFragment.mediaType)")
        }
        guard let text = String(validating: response.body, as: UTF8.self) else {
            throw .badAnswer("the ICE restart reply is not UTF-8")
        }
        let answer: TrickleICEFragment
        do {
            answer = try TrickleICEFragment(parsing: text)
        } catch {
            throw .badAnswer("the ICE restart reply: \(error)")
        }
        guard answer.credentials != nil else { throw .badAnswer("the ICE restart reply has no a=ice-ufrag and a=ice-pwd") }
        return (answer, response.header("ETag"))
    }

    /// PATCHes candidates gathered after the offer (trickle ICE, RFC 9725 section 4.3.1): `If-Match` with the
    /// session's latest `ETag`, an `application/trickle-ice-sdpfrag` body.
    /// - Parameters:
    ///   - session: The session `publish` returned.
    ///   - etag: The latest entity-tag (the session's, or a restart's).
    ///   - fragment: The current credentials, the mid and the candidates.
    /// - Throws: `WHIPError`: `.httpStatus` for a status other than 204 or 200 (405 or 501: the endpoint takes no
    ///   trickled candidates; 412: the ETag is stale), `.authenticationFailed`, connection errors.
    public func trickle(_ session: WHIPSession, etag: String, fragment: TrickleICEFragment) async throws(WHIPError) {
        let (response, _) = try await exchange(
            method: "PATCH", url: session.resource, body: Array(fragment.sdp.utf8),
            headers: [("Content-Type", TrickleICEFragment.mediaType), ("If-Match", etag)])
        guard response.status == 204 || response.status == 200 else { throw error(for: response, method: "PATCH") }
    }

    /// DELETEs the session resource (RFC 9725 section 4.2): the endpoint tears the session down.
    /// - Parameters:
    ///   - session: The session `publish` returned.
    /// - Throws: `WHIPError`: `.httpStatus` for a status other than 2xx, `.authenticationFailed`, connection errors.
    public func terminate(_ session: WHIPSession) async throws(WHIPError) {
        let (response, _) = try await exchange(method: "DELETE", url: session.resource, body: [], headers: [])
        guard (200..<300).contains(response.status) else { throw error(for: response, method: "DELETE") }
    }

    // MARK: - Exchanges

    /// One request, following 307/308 redirects (which keep the method and body, RFC 9110 section 15.4).
    func exchange(method: String, url: HTTPURL, body: [UInt8], headers: [(String, String)]) async throws(WHIPError)
        -> (HTTPExchange.Response, HTTPURL)
    {
        var url = url
        var redirects = 0
        while true {
            var request = HTTPExchange.Request(method: method, url: url, body: body)
            request.headers = headers.map { (name: $0.0, value: $0.1) }
            request.headers.append((name: "User-Agent", value: "rtc-h264-whip"))
            // The token goes only to the endpoint's own origin (a redirect elsewhere does not carry it, as in curl),
            // and never in clear to a host that is not loopback.
            if let token = configuration.token, url.origin == endpoint.origin {
                guard url.isHTTPS || url.isLoopback else { throw .tokenRequiresHTTPS(url: url.description) }
                request.headers.append((name: "Authorization", value: "Bearer \(token)"))
            }
            let response: HTTPExchange.Response
            do {
                response = try await HTTPExchange.perform(
                    request, timeout: configuration.requestTimeout, maximumBodySize: configuration.maximumResponseSize,
                    tls: tls)
            } catch {
                throw WHIPError(error)
            }
            guard response.status == 307 || response.status == 308 else { return (response, url) }
            redirects += 1
            guard redirects <= configuration.maximumRedirects else { throw .tooManyRedirects(configuration.maximumRedirects) }
            guard let location = response.header("Location") else {
                throw .badLocation("the \(response.status) redirect has no Location header")
            }
            do {
                url = try url.resolving(location)
            } catch {
                throw WHIPError(error)
            }
        }
    }

    /// The error for an unexpected status.
    func error(for response: HTTPExchange.Response, method: String) -> WHIPError {
        let quoted = excerpt(response.body)
        if response.status == 401 || response.status == 403 {
            return .authenticationFailed(status: response.status, excerpt: quoted)
        }
        return .httpStatus(status: response.status, method: method, excerpt: quoted)
    }

    /// At most `WHIPConfiguration.excerptLength` characters of a body, on one line, control characters escaped
    /// (`PeerText`); nothing at all when the body may hold the token (`mayHold(token:in:)`).
    func excerpt(_ body: [UInt8]) -> String {
        let text = String(decoding: body, as: UTF8.self)
        let line = PeerText.excerpt(
            text.unicodeScalars.map { $0 == "\r" || $0 == "\n" || $0 == "\t" ? " " : String($0) }.joined().trimmingSpaces,
            limit: WHIPConfiguration.excerptLength)
        if let token = configuration.token, !token.isEmpty,
           Self.mayHold(token: token, in: Array(text.utf8)) || Self.mayHold(token: token, in: Array(line.utf8)) {
            return "(the reply is not shown: it may hold the bearer token)"
        }
        return line
    }

    /// Whether `text` holds the token, or a piece of it that could be printed, in any form a reply might split or
    /// dress it in: compared after removing every byte that is not a visible ASCII character other than `\`
    /// (spaces, line breaks, tabs, control characters, escapes), and an excerpt cut in the middle of it counts.
    static func mayHold(token: String, in text: [UInt8]) -> Bool {
        func squeezed(_ bytes: some Sequence<UInt8>) -> [UInt8] {
            bytes.filter { (0x21...0x7E).contains($0) && $0 != UInt8(ascii: "\\") }
        }
        let needle = squeezed(token.utf8), haystack = squeezed(text)
        guard !needle.isEmpty else { return false }
        let piece = min(needle.count, minimumTokenPiece)
        // Any `piece` bytes of the token in a row (a whole token, or a part of it that an excerpt could show).
        var pieces = Set<ArraySlice<UInt8>>()
        for start in 0...(needle.count - piece) { pieces.insert(needle[start..<(start + piece)]) }
        guard haystack.count >= piece else { return false }
        for start in 0...(haystack.count - piece) where pieces.contains(haystack[start..<(start + piece)]) { return true }
        return false
    }

    /// The shortest run of the token's characters treated as a leak (shorter runs occur by chance in any text).
    static let minimumTokenPiece = 8
}

extension Substring {
    var trimmingCharacters: String { String(self).trimmingSpaces }
}

extension String {
    /// Every occurrence of `target` replaced (no Foundation).
    func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var result = ""
        var rest = Substring(self)
        while let range = rest.firstRange(of: target) {
            result += rest[..<range.lowerBound]
            result += replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}
