/// A published WHIP session: the resource to DELETE when done and the endpoint's SDP answer.
public struct WHIPSession: Hashable, Sendable {
    /// The session resource (the 201's `Location`, resolved to an absolute URL).
    public var resourceURL: String
    /// The SDP answer.
    public var answer: String
    /// The resource's `ETag`, if the endpoint sent one (RFC 9725 section 4.3.1, for ICE restarts).
    public var etag: String?

    /// The resource URL, parsed.
    let resource: HTTPURL
}
