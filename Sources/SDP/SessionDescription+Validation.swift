extension SessionDescription {
    /// Checks that this description can be written and read back unchanged, by this package's parser and so by
    /// peers: what a sender configures (port, payload type, `profile-level-id`, packetization mode, CNAME, frame
    /// rate, names without control characters...) is held to the rules `init(parsing:)` applies to what it reads.
    /// A sender calls it once at configuration time instead of writing an SDP no receiver accepts.
    /// - Throws: the `SessionDescriptionError` the parser gives for the serialized text (its line numbers are
    ///   those of `serialize()`), or ``SessionDescriptionError/notRepresentable(field:reason:)`` for a value that reads
    ///   back differently.
    public func validate() throws(SessionDescriptionError) {
        // A line end inside a text field would start a line of the attacker's (or the typo's) choosing.
        let texts = [("session name", sessionName), ("connection address", connectionAddress), ("cname", cname ?? ""),
                     ("crypto suite", crypto?.suite ?? ""), ("crypto key parameters", crypto?.keyParameters ?? "")]
        for (field, text) in texts where text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) {
            throw .notRepresentable(field: field, reason: "it holds a control character")
        }
        let parsed = try SessionDescription(parsing: serialize())
        let fields: [(String, Bool)] = [
            ("connection address", parsed.connectionAddress == connectionAddress),
            ("port", parsed.port == port),
            ("rtcp-mux", parsed.rtcpMux == rtcpMux),
            ("payload type", parsed.payloadType == payloadType),
            ("profile-level-id", parsed.profileLevelID == profileLevelID),
            ("packetization-mode", parsed.packetizationMode == packetizationMode),
            ("sprop-parameter-sets", parsed.parameterSets == parameterSets),
            ("crypto", parsed.crypto == crypto),
            ("ssrc", parsed.ssrc == ssrc),
            ("cname", ssrc == nil || parsed.cname == (cname ?? SessionDescription.defaultCNAME)),
            ("frame rate", parsed.frameRate == frameRate),
            ("session name", parsed.sessionName == sessionName),
        ]
        if let (field, _) = fields.first(where: { !$0.1 }) { throw .notRepresentable(field: field, reason: nil) }
    }
}
