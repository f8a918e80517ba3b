/// One reply of a small HTTP endpoint (the control endpoint, WHEP): status, headers in order, body.
package struct HTTPEndpointReply: Sendable {
    /// The status code.
    package var status: Int
    /// Header names and values, in order (`Content-Length` and `Connection` are added when written).
    package var headers: [(name: String, value: String)]
    /// The body.
    package var body: [UInt8]

    /// Creates a reply.
    package init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
