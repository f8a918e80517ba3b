import DTLS

/// The peer's ICE and DTLS parameters of a media section (media level first, then session level).
struct RemoteTransport {
    var credentials: ICECredentials
    var fingerprint: DTLSFingerprint
    var setup: DTLSSetup
    var candidates: [ICECandidate]
    var iceLite: Bool
}

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

extension JSEPMediaSection {
    /// Our video m-section, for an offer or an answer.
    static func video(
        mid: String, format: H264PayloadFormat, configuration: VideoSendConfiguration,
        transport: LocalTransportDescription, setup: DTLSSetup, transportCCExtensionID: Int?, rtcpReducedSize: Bool,
        direction: String
    ) -> JSEPMediaSection {
        var formats = ["\(format.payloadType)"]
        if let rtx = format.rtxPayloadType { formats.append("\(rtx)") }
        let defaultCandidate = transport.candidates.first { $0.transportAddress != nil }
        let connection = defaultCandidate.flatMap(\.transportAddress).map {
            "IN \($0.ip.isIPv6 ? "IP6" : "IP4") \($0.ip)"
        } ?? unspecifiedConnection
        var section = JSEPMediaSection(kind: "video", port: defaultCandidate?.port ?? discardPort,
                                       proto: webRTCProtocol, formats: formats, connection: connection)
        var lines: [SDPAttribute] = [
            SDPAttribute("mid", mid),
            SDPAttribute("ice-ufrag", transport.credentials.ufrag),
            SDPAttribute("ice-pwd", transport.credentials.password),
            SDPAttribute("fingerprint", transport.fingerprint.sdpValue),
            SDPAttribute("setup", setup.rawValue),
        ]
        if let id = transportCCExtensionID {
            lines.append(SDPAttribute("extmap", "\(id) \(VideoSendConfiguration.transportCCURI)"))
        }
        lines.append(SDPAttribute(direction))
        lines.append(SDPAttribute("msid", "\(configuration.streamID) \(configuration.trackID)"))
        lines.append(SDPAttribute("rtcp-mux"))
        if rtcpReducedSize { lines.append(SDPAttribute("rtcp-rsize")) }
        lines.append(SDPAttribute("rtpmap", "\(format.payloadType) H264/\(H264PayloadFormat.clockRate)"))
        lines += format.feedback.map { SDPAttribute("rtcp-fb", "\(format.payloadType) \($0)") }
        lines.append(SDPAttribute("fmtp", "\(format.payloadType) \(format.fmtpValue)"))
        if let rtx = format.rtxPayloadType {
            lines.append(SDPAttribute("rtpmap", "\(rtx) rtx/\(H264PayloadFormat.clockRate)"))
            lines.append(SDPAttribute("fmtp", "\(rtx) apt=\(format.payloadType)"))
        }
        let ssrcs = [configuration.ssrc] + (format.rtxPayloadType != nil ? configuration.rtxSSRC.map { [$0] } ?? [] : [])
        if ssrcs.count == 2 { lines.append(SDPAttribute("ssrc-group", "FID \(ssrcs[0]) \(ssrcs[1])")) }
        for ssrc in ssrcs {
            lines.append(SDPAttribute("ssrc", "\(ssrc) cname:\(configuration.cname)"))
            lines.append(SDPAttribute("ssrc", "\(ssrc) msid:\(configuration.streamID) \(configuration.trackID)"))
        }
        lines += transport.candidates.map { SDPAttribute("candidate", $0.sdpValue) }
        lines.append(SDPAttribute("end-of-candidates"))
        section.attributes = lines
        return section
    }
}
