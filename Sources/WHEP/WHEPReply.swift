import HTTPEndpoint

/// An HTTP reply of the WHEP endpoint: status, headers and body. Pure data, so that routing is tested without
/// sockets.
public struct WHEPReply: Sendable, Equatable {
    /// The HTTP status code.
    public var status: Int
    /// Header names and values, in order (CORS headers are added by the server to every reply).
    public var headers: [(name: String, value: String)]
    /// The body.
    public var body: String

    /// Creates a reply.
    /// - Parameters:
    ///   - status: the status code.
    ///   - headers: the headers.
    ///   - body: the body.
    public init(status: Int, headers: [(name: String, value: String)] = [], body: String = "") {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A plain-text error reply: the body says what was wrong and what to do.
    /// - Parameters:
    ///   - status: the status code.
    ///   - message: the explanation.
    /// - Returns: the reply.
    public static func error(_ status: Int, _ message: String) -> WHEPReply {
        WHEPReply(status: status, headers: [("Content-Type", "text/plain; charset=utf-8")], body: message + "\n")
    }

    /// The value of the first header of that name (case-insensitive).
    /// - Parameter name: the header name.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    public static func == (lhs: WHEPReply, rhs: WHEPReply) -> Bool {
        lhs.status == rhs.status && lhs.body == rhs.body
            && lhs.headers.map { "\($0.name): \($0.value)" } == rhs.headers.map { "\($0.name): \($0.value)" }
    }
}

extension WHEPReply {
    /// The reply on the wire.
    var http: HTTPEndpointReply { HTTPEndpointReply(status: status, headers: headers, body: Array(body.utf8)) }
}
