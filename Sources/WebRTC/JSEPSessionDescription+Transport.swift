import DTLS

extension JSEPSessionDescription {
    /// Reads the peer's transport parameters for a section.
    /// - Parameters:
    ///   - section: The media section.
    ///   - defaultSetup: The setup assumed when `a=setup` is absent (`active`, RFC 4145 section 4).
    /// - Throws: `JSEPError.missing` or `.unsupported` naming the attribute.
    func remoteTransport(for section: JSEPMediaSection, defaultSetup: DTLSSetup = .active) throws(JSEPError)
        -> RemoteTransport
    {
        guard let ufrag = attribute("ice-ufrag", in: section) else { throw .missing("a=ice-ufrag") }
        guard let password = attribute("ice-pwd", in: section) else { throw .missing("a=ice-pwd") }
        let credentials: ICECredentials
        do {
            credentials = try ICECredentials(ufrag: ufrag, password: password)
        } catch {
            throw .unsupported("its ICE credentials (\(error))")
        }
        let fingerprints = section.attributes(named: "fingerprint") + attributes.filter { $0.name == "fingerprint" }
            .map { $0.value ?? "" }
        guard !fingerprints.isEmpty else { throw .missing("a=fingerprint") }
        let parsed = fingerprints.compactMap { try? DTLSFingerprint(sdpValue: $0) }
        guard let fingerprint = parsed.first(where: { $0.hashFunction == "sha-256" }) ?? parsed.first else {
            throw .unsupported("any of its fingerprint hash functions (\(fingerprints.joined(separator: ", ")))")
        }
        let setupText = attribute("setup", in: section)
        let setup: DTLSSetup
        if let setupText {
            guard let value = DTLSSetup(rawValue: setupText) else { throw .incompatibleSetup(setupText) }
            setup = value
        } else {
            setup = defaultSetup
        }
        return RemoteTransport(credentials: credentials, fingerprint: fingerprint, setup: setup,
                               candidates: section.candidates, iceLite: isICELite)
    }

    /// The video section of an answer to our one-section offer, with the peer's transport and our DTLS role: the
    /// section named by our mid (or the first), which must be video, not rejected, in one of `directions` and with
    /// rtcp-mux; an answer must choose its DTLS role (RFC 5763 section 5), a missing `a=setup` meaning active.
    /// - Parameters:
    ///   - mid: our offer's mid.
    ///   - directions: the answer's directions that suit us (`recvonly` for a publisher, `sendonly` for a player,
    ///     `sendrecv` for both).
    ///   - purpose: what the direction is for, in the error (`receiving our stream`).
    /// - Throws: `JSEPError.noVideoSection`, `.unsupported` (direction, rtcp-mux), `.incompatibleSetup`, `.missing`.
    func answeredVideoSection(mid: String, directions: Set<String>, purpose: String) throws(JSEPError)
        -> (section: JSEPMediaSection, remote: RemoteTransport, role: DTLSRole)
    {
        guard let section = media.first(where: { $0.mid == mid }) ?? media.first,
              section.kind == "video", !section.isRejected
        else { throw .noVideoSection }
        guard directions.contains(section.direction) else { throw .unsupported("\(purpose) (a=\(section.direction))") }
        guard section.has("rtcp-mux") else { throw .unsupported("rtcp-mux") }
        let remote = try remoteTransport(for: section, defaultSetup: .active)
        guard remote.setup == .active || remote.setup == .passive,
              let role = remote.setup.answer(preferring: .passive)?.role
        else { throw .incompatibleSetup(remote.setup.rawValue) }
        return (section, remote, role)
    }
}
