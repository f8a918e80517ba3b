import DTLS

extension JSEPMediaSection {
    /// Our video m-section, for an offer or an answer.
    static func video(
        mid: String, format: H264PayloadFormat, configuration: VideoSendConfiguration,
        transport: LocalTransportDescription, setup: DTLSSetup, transportCCExtensionID: Int?, rtcpReducedSize: Bool,
        direction: String, absoluteCaptureTimeExtensionID: Int? = nil, playoutDelayExtensionID: Int? = nil,
        dependencyDescriptorExtensionID: Int? = nil, simulcastExtensionIDs: [(id: Int, uri: String)] = [],
        simulcast: SimulcastDescription? = nil
    ) -> JSEPMediaSection {
        var formats = ["\(format.payloadType)"]
        if let rtx = format.rtxPayloadType { formats.append("\(rtx)") }
        if let fec = format.fecPayloadType { formats.append("\(fec)") }
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
        if let id = absoluteCaptureTimeExtensionID {
            lines.append(SDPAttribute("extmap", "\(id) \(VideoSendConfiguration.absoluteCaptureTimeURI)"))
        }
        if let id = playoutDelayExtensionID {
            lines.append(SDPAttribute("extmap", "\(id) \(VideoSendConfiguration.playoutDelayURI)"))
        }
        if let id = dependencyDescriptorExtensionID {
            lines.append(SDPAttribute("extmap", "\(id) \(VideoSendConfiguration.dependencyDescriptorURI)"))
        }
        for (id, uri) in simulcastExtensionIDs { lines.append(SDPAttribute("extmap", "\(id) \(uri)")) }
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
        if let fec = format.fecPayloadType {
            // As libwebrtc writes it: transport-wide feedback for the FEC stream too, and the unused repair window.
            lines.append(SDPAttribute("rtpmap", "\(fec) \(H264PayloadFormat.flexFECName)/\(H264PayloadFormat.clockRate)"))
            if transportCCExtensionID != nil { lines.append(SDPAttribute("rtcp-fb", "\(fec) transport-cc")) }
            lines.append(SDPAttribute("fmtp", "\(fec) repair-window=10000000"))
        }
        if let simulcast { lines += simulcast.attributes }
        // With simulcast the streams are named by RTP stream id, not SSRC (RFC 8853 section 5.1).
        var ssrcs = simulcast != nil ? []
            : [configuration.ssrc] + (format.rtxPayloadType != nil ? configuration.rtxSSRC.map { [$0] } ?? [] : [])
        if ssrcs.count == 2 { lines.append(SDPAttribute("ssrc-group", "FID \(ssrcs[0]) \(ssrcs[1])")) }
        if format.fecPayloadType != nil, let fec = configuration.fecSSRC {
            // Chromium turns its FlexFEC receiver on only for a signalled FEC-FR group.
            lines.append(SDPAttribute("ssrc-group", "FEC-FR \(configuration.ssrc) \(fec)"))
            ssrcs.append(fec)
        }
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
