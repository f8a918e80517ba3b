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
}
