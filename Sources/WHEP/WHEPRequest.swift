import HTTPEndpoint
public import WebRTC

/// What a WHEP HTTP request asks for, once its method, path, content type and token were checked.
///
/// | method and path | reply |
/// |---|---|
/// | `GET /`, `HEAD /` | the viewer page (HTML + inline JS) |
/// | `POST /whep` (`Content-Type: application/sdp`, the offer) | 201, `Location: /whep/<id>`, `ETag`, the answer |
/// | `DELETE /whep/<id>` | 200, the viewer torn down; 404 for an unknown id |
/// | `OPTIONS` any path | 204 with CORS and `Accept-Post: application/sdp` |
/// | `PATCH /whep/<id>` (`Content-Type: application/trickle-ice-sdpfrag`, `If-Match`) | trickled candidates: 204; an ICE restart (`If-Match: "*"`, new ufrag and password): 200 with ours and a new `ETag` |
public enum WHEPRequest: Sendable, Equatable {
    /// The viewer page.
    case page
    /// A viewer's offer.
    case offer(String)
    /// Ends a viewer's session.
    case delete(id: String)
    /// A CORS preflight.
    case options
    /// A viewer's trickled candidates or ICE restart (RFC 9725 sections 4.3-4.4): its fragment and `If-Match`.
    case patch(id: String, fragment: TrickleICEFragment, ifMatch: String)

    /// The path of the WHEP endpoint.
    public static let endpointPath = "/whep"
    /// The largest request body accepted (an offer with many codecs is 5-10 KiB).
    public static let maximumBodySize = 64 * 1024
    /// The longest session id accepted in a path (ours are 32 hex digits).
    static let maximumIDLength = 64

    /// Checks a request and turns it into what it asks for, or into the error reply it deserves. Pure.
    /// - Parameters:
    ///   - method: the HTTP method.
    ///   - uri: the request target (a query is ignored).
    ///   - contentType: the `Content-Type` header, if any.
    ///   - authorization: the `Authorization` header, if any (`Bearer <token>`, the scheme in any case).
    ///   - token: the bearer token required, or nil.
    ///   - ifMatch: the `If-Match` header, if any (a `PATCH` must carry one: 428 without).
    ///   - body: the body (already cut at `maximumBodySize`: `bodyTooLarge` says so).
    ///   - bodyTooLarge: whether the body was over `maximumBodySize`.
    /// - Returns: the request, or the reply.
    public static func parse(
        method: String, uri: String, contentType: String?, authorization: String?, token: String?,
        ifMatch: String? = nil, body: [UInt8], bodyTooLarge: Bool
    ) -> Result<WHEPRequest, WHEPReplyError> {
        let path = uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? uri
        if method == "OPTIONS" { return .success(.options) }  // a preflight carries no credentials (Fetch standard)
        if path == "/" || path == "/index.html" {
            guard method == "GET" || method == "HEAD" else {  // HEAD: the same reply, its body dropped (RFC 9110 9.3.2)
                return .failure(WHEPReplyError(.methodNotAllowed("GET, HEAD", path: path)))
            }
            return .success(.page)  // the page holds no secret: it asks for the token itself (#token=...)
        }
        let id: String?
        if path == endpointPath {
            id = nil
        } else if path.hasPrefix(endpointPath + "/") {
            let rest = String(path.dropFirst(endpointPath.count + 1))
            guard !rest.isEmpty, rest.utf8.count <= maximumIDLength, !rest.contains("/") else {
                return .failure(WHEPReplyError(.error(404, "no WHEP session at \(path.prefix(100))")))
            }
            id = rest
        } else {
            return .failure(WHEPReplyError(.error(404, "unknown path \(path.prefix(100)); the WHEP endpoint is \(endpointPath), the viewer page /")))
        }
        if let token {
            guard HTTPBearerToken.matches(authorization: authorization, token: token) else {
                var reply = WHEPReply.error(401, "missing or wrong bearer token (send Authorization: Bearer <token>)")
                reply.headers.append(("WWW-Authenticate", "Bearer"))
                return .failure(WHEPReplyError(reply))
            }
        }
        guard let id else {
            guard method == "POST" else { return .failure(WHEPReplyError(.methodNotAllowed("POST, OPTIONS", path: path))) }
            if bodyTooLarge {
                return .failure(WHEPReplyError(.error(413, "offer over \(maximumBodySize) bytes")))
            }
            guard mediaType(of: contentType) == "application/sdp" else {
                return .failure(WHEPReplyError(.error(415, "the offer must be sent as Content-Type: application/sdp (got \(contentType.map { String($0.prefix(100)) } ?? "none"))")))
            }
            guard let offer = String(validating: body, as: UTF8.self), !offer.allSatisfy(\.isWhitespace) else {
                return .failure(WHEPReplyError(.error(400, "the offer is empty or not UTF-8")))
            }
            return .success(.offer(offer))
        }
        switch method {
        case "DELETE": return .success(.delete(id: id))
        case "PATCH": return parsePatch(id: id, contentType: contentType, ifMatch: ifMatch, body: body, bodyTooLarge: bodyTooLarge)
        default: return .failure(WHEPReplyError(.methodNotAllowed("DELETE, PATCH, OPTIONS", path: path)))
        }
    }

    /// A `Content-Type` value's media type, lowercased, without its parameters (`; charset=...`).
    static func mediaType(of contentType: String?) -> String? {
        contentType?.split(separator: ";").first.map { $0.trimmingCharacters(in: " \t").lowercased() }
    }

    /// The most bytes a trickle fragment may have: `TrickleICEFragment.maximumCandidates` candidates of about 150
    /// bytes, with room to spare.
    public static let maximumFragmentSize = 16 * 1024

    /// A `PATCH` of a session: a trickle ICE fragment (RFC 8840) with the `If-Match` RFC 9725 requires.
    static func parsePatch(
        id: String, contentType: String?, ifMatch: String?, body: [UInt8], bodyTooLarge: Bool
    ) -> Result<WHEPRequest, WHEPReplyError> {
        guard mediaType(of: contentType) == TrickleICEFragment.mediaType else {
            return .failure(WHEPReplyError(.error(415, "a PATCH must be sent as Content-Type: \(TrickleICEFragment.mediaType) (got \(contentType.map { String($0.prefix(100)) } ?? "none"))")))
        }
        guard let ifMatch = ifMatch?.trimmingCharacters(in: " \t"), !ifMatch.isEmpty else {
            return .failure(WHEPReplyError(.error(428, "a PATCH must carry If-Match: the session's ETag to trickle candidates, \"*\" to restart ICE")))
        }
        if bodyTooLarge || body.count > maximumFragmentSize {
            return .failure(WHEPReplyError(.error(413, "trickle ICE fragment over \(maximumFragmentSize) bytes")))
        }
        guard let text = String(validating: body, as: UTF8.self) else {
            return .failure(WHEPReplyError(.error(400, "the trickle ICE fragment is not UTF-8")))
        }
        do {
            return .success(.patch(id: id, fragment: try TrickleICEFragment(parsing: text), ifMatch: ifMatch))
        } catch {
            return .failure(WHEPReplyError(.error(400, "bad trickle ICE fragment: \(error)")))
        }
    }

}

extension WHEPReply {
    /// 405 with the `Allow` header.
    static func methodNotAllowed(_ allow: String, path: String, reason: String? = nil) -> WHEPReply {
        var reply = WHEPReply.error(405, reason ?? "\(path.prefix(100)) takes \(allow)")
        reply.headers.append(("Allow", allow))
        return reply
    }
}
