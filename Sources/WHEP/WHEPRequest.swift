import HTTPEndpoint

/// What a WHEP HTTP request asks for, once its method, path, content type and token were checked.
///
/// | method and path | reply |
/// |---|---|
/// | `GET /`, `HEAD /` | the viewer page (HTML + inline JS) |
/// | `POST /whep` (`Content-Type: application/sdp`, the offer) | 201, `Location: /whep/<id>`, `ETag`, the answer |
/// | `DELETE /whep/<id>` | 200, the viewer torn down; 404 for an unknown id |
/// | `OPTIONS` any path | 204 with CORS and `Accept-Post: application/sdp` |
/// | `PATCH /whep/<id>` | 405: no trickle ICE (the offer must carry its candidates; the answer carries ours) |
public enum WHEPRequest: Sendable, Equatable {
    /// The viewer page.
    case page
    /// A viewer's offer.
    case offer(String)
    /// Ends a viewer's session.
    case delete(id: String)
    /// A CORS preflight.
    case options

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
    ///   - body: the body (already cut at `maximumBodySize`: `bodyTooLarge` says so).
    ///   - bodyTooLarge: whether the body was over `maximumBodySize`.
    /// - Returns: the request, or the reply.
    public static func parse(
        method: String, uri: String, contentType: String?, authorization: String?, token: String?, body: [UInt8],
        bodyTooLarge: Bool
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
            let mediaType = contentType?.split(separator: ";").first.map { $0.trimmingCharacters(in: " \t").lowercased() }
            guard mediaType == "application/sdp" else {
                return .failure(WHEPReplyError(.error(415, "the offer must be sent as Content-Type: application/sdp (got \(contentType.map { String($0.prefix(100)) } ?? "none"))")))
            }
            guard let offer = String(validating: body, as: UTF8.self), !offer.allSatisfy(\.isWhitespace) else {
                return .failure(WHEPReplyError(.error(400, "the offer is empty or not UTF-8")))
            }
            return .success(.offer(offer))
        }
        switch method {
        case "DELETE": return .success(.delete(id: id))
        case "PATCH":
            return .failure(WHEPReplyError(.methodNotAllowed(
                "DELETE, OPTIONS", path: path,
                reason: "trickle ICE and ICE restarts are not supported: the offer carries its candidates (gather first)")))
        default: return .failure(WHEPReplyError(.methodNotAllowed("DELETE, OPTIONS", path: path)))
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
