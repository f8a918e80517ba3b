/// A reply that ends a request early (unknown path, wrong method, wrong content type, no token).
public struct WHEPReplyError: Error, Sendable, Equatable {
    /// The reply to send.
    public var reply: WHEPReply
    init(_ reply: WHEPReply) { self.reply = reply }
}
