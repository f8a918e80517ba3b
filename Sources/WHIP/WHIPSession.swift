public import WebRTC
import HTTPRequester

/// A published WHIP session: the resource to DELETE when done, the endpoint's SDP answer, and the ICE servers it
/// offers. Printing it never shows an ICE server's credential (`ICEServer` redacts it).
public struct WHIPSession: Hashable, Sendable {
    /// The session resource (the 201's `Location`, resolved to an absolute URL).
    public var resourceURL: String
    /// The SDP answer.
    public var answer: String
    /// The resource's `ETag`, if the endpoint sent one (RFC 9725 section 4.3.1, for ICE restarts).
    public var etag: String?
    /// The STUN and TURN servers the endpoint offers in the 201's `Link` headers (RFC 9725 section 4.6), in order,
    /// at most `ICEServerLinks.maximumServers`. Not used yet: nothing relays through them.
    public var iceServers: [ICEServer] = []
    /// Why `Link` headers of the 201 were skipped (malformed, not a usable ICE server, too many, too long); never
    /// holds a credential.
    public var iceServerProblems: [String] = []

    /// The resource URL, parsed.
    let resource: HTTPURL
}
