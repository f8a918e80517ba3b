/// A request `route` refused, with the reply it gets.
package struct HTTPEndpointError: Error, Sendable {
    /// The reply.
    package var reply: HTTPEndpointReply
    /// Creates the error.
    package init(_ reply: HTTPEndpointReply) { self.reply = reply }
}
