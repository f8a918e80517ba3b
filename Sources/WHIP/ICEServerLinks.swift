public import WebRTC

/// The ICE servers of a reply's `Link` header fields (RFC 9725 section 4.6): the links whose relations include
/// `ice-server`, read as `ICEServer`s in order, at most `maximumServers`. Links of other relations are ignored;
/// malformed links and unusable ICE server links are skipped with an explanation, never failing the publish.
public struct ICEServerLinks: Hashable, Sendable {
    /// The ICE servers, in the order of the links.
    public var servers: [ICEServer] = []
    /// Why links were skipped (at most `LinkHeader.maximumExplanations`, the first ones); never holds a credential.
    public var problems: [String] = []
    /// How many links were skipped: malformed, unusable as an ICE server, or beyond `maximumServers`.
    public var skippedCount = 0

    /// The most ICE servers kept (an endpoint offers a few: one STUN, TURN over UDP, TCP and TLS).
    public static let maximumServers = 16

    /// Reads the ICE servers of `Link` header field values.
    /// - Parameters:
    ///   - fieldValues: The value of every `Link` field of a reply, in order.
    public init(fieldValues: some Sequence<String>) {
        let parse = LinkHeader.parse(fieldValues)
        var problems = parse.problems
        skippedCount = parse.malformedCount
        var position = 0
        var beyond = 0
        for link in parse.links where link.relations.contains(ICEServer.linkRelation) {
            position += 1
            guard servers.count < Self.maximumServers else { beyond += 1; continue }
            do {
                servers.append(try ICEServer(link: link))
            } catch {
                skippedCount += 1
                problems.append("ice-server link \(position) skipped: \(error)")
            }
        }
        // The summaries are kept whatever the number of other explanations.
        var summaries: [String] = []
        if let truncation = parse.truncation { summaries.append(truncation) }
        if beyond > 0 {
            skippedCount += beyond
            summaries.append("\(beyond) more ICE server links ignored: at most \(Self.maximumServers) are kept")
        }
        self.problems = Array(problems.prefix(LinkHeader.maximumExplanations - summaries.count)) + summaries
    }
}

extension ICEServer {
    /// Reads an ICE server link: its target URI, `username`, `credential` and `credential-type`.
    /// - Parameters:
    ///   - link: A link whose relations include `ice-server` (not checked here).
    /// - Throws: `ICEServerError`, as `init(uri:username:credential:)`, and `.unsupportedCredentialType` for a
    ///   `credential-type` other than `password`.
    public init(link: LinkValue) throws(ICEServerError) {
        if let type = link.parameters["credential-type"], type.lowercased() != Self.passwordCredentialType {
            throw .unsupportedCredentialType(type)
        }
        try self.init(uri: link.target, username: link.parameters["username"], credential: link.parameters["credential"])
    }
}
