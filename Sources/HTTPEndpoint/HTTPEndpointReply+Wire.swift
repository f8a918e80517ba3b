import NIOHTTP1

extension HTTPEndpointReply {
    /// The reply as HTTP/1.1 bytes with `Connection: close`, for a connection refused before (or instead of) the HTTP
    /// codec: a 503 past the connection limit, a 431 for an oversized head. Carries `X-Content-Type-Options:
    /// nosniff` like every other reply.
    /// - Parameter extraHeaders: headers added after the reply's own (CORS, so that a browser can read the refusal).
    /// - Returns: the status line, the headers, the empty line and the body.
    package func wireBytes(extraHeaders: [(name: String, value: String)] = []) -> [UInt8] {
        let status = HTTPResponseStatus(statusCode: status)
        var text = "HTTP/1.1 \(status.code) \(status.reasonPhrase)\r\n"
        for (name, value) in headers + extraHeaders + HTTPResponseHeadersHandler.headers {
            text += "\(name): \(value)\r\n"
        }
        text += "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        return Array(text.utf8) + body
    }
}
