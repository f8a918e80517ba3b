import H264

/// Answers a browser's offer for our one H.264 video stream (the WHEP server side, RFC 8829 section 5.3).
///
/// Picks the first video m-section that lets us send, the first offered H.264 format that carries our profile and
/// packetization mode, the offered RTX format for it (when we have an RTX SSRC), the offered `flexfec-03` format (when
/// we have a FEC SSRC), the `a=rtcp-fb` values both sides
/// handle, and transport-cc when both sides use it. Every other m-section is rejected (port 0), as JSEP requires.
///
/// ```swift
/// let offer = try JSEPSessionDescription(parsing: body)
/// let (answer, negotiated) = try VideoAnswerer.answer(offer, video: video, transport: local)
/// respond(201, body: answer.sdp)
/// ```
public enum VideoAnswerer {
    /// Produces the answer.
    /// - Parameters:
    ///   - offer: The parsed offer.
    ///   - video: What we send.
    ///   - transport: Our ICE and DTLS parameters.
    ///   - origin: The `o=` value of the answer (session id and version).
    /// - Returns: The answer and what was negotiated.
    /// - Throws: `JSEPError.noVideoSection`, `.noCompatibleH264` (listing what was offered), `.unsupported` (no
    ///   rtcp-mux, not `UDP/TLS/RTP/SAVPF`), `.missing` (credentials, fingerprint), `.incompatibleSetup`.
    public static func answer(
        _ offer: JSEPSessionDescription, video: VideoSendConfiguration, transport: LocalTransportDescription,
        origin: String = "- 1 1 IN IP4 0.0.0.0"
    ) throws(JSEPError) -> (answer: JSEPSessionDescription, negotiated: NegotiatedVideo) {
        guard let index = offer.media.firstIndex(where: {
            $0.kind == "video" && !$0.isRejected && ($0.direction == "recvonly" || $0.direction == "sendrecv")
        }) else { throw .noVideoSection }
        for (number, candidate) in offer.media.enumerated() {
            if let mid = candidate.mid, !JSEPMediaSection.isValidMid(mid) {
                throw .malformedLine(number: 0, line: PeerText.excerpt("a=mid:\(mid)"),
                                     reason: "m-section \(number + 1)'s mid must be a token of 1-\(JSEPMediaSection.maximumMidLength) characters (RFC 5888, RFC 8843)")
            }
        }
        let section = offer.media[index]
        guard section.proto.uppercased().hasSuffix("SAVPF") else { throw .unsupported("\(section.proto) (need SAVPF)") }
        guard section.has("rtcp-mux") else { throw .unsupported("rtcp-mux") }
        let mid = section.mid ?? "\(index)"
        let remote = try offer.remoteTransport(for: section)
        guard let setup = remote.setup.answer(preferring: transport.preferredSetup), let role = setup.role else {
            throw .incompatibleSetup(remote.setup.rawValue)
        }

        let offered = H264PayloadFormat.formats(in: section)
        let chosen = offered.first { $0.carries(video.profileLevelID, mode: video.packetizationMode) }
            ?? offered.first {
                $0.carries(video.profileLevelID, mode: video.packetizationMode,
                           acceptBaseline: video.acceptBaselineForConstrainedBaseline)
            }
        guard let chosen else {
            throw .noCompatibleH264(offered: offered.map { "\($0.payloadType) \($0.profileLevelID) mode \($0.packetizationMode)" })
        }
        // Each extension only when both sides use it, under an ID no other offered extension shares.
        let transportCCID = video.transportWideCC ? section.usableExtensionID(VideoSendConfiguration.transportCCURI) : nil
        let captureTimeID = video.absoluteCaptureTime
            ? section.usableExtensionID(VideoSendConfiguration.absoluteCaptureTimeURI) : nil
        let playoutDelayID = video.playoutDelay ? section.usableExtensionID(VideoSendConfiguration.playoutDelayURI) : nil
        let descriptorID = video.dependencyDescriptor
            ? section.usableExtensionID(VideoSendConfiguration.dependencyDescriptorURI) : nil
        var ourFeedback = video.feedback
        if transportCCID != nil { ourFeedback.append("transport-cc") }
        var format = H264PayloadFormat(
            payloadType: chosen.payloadType,
            profileLevelID: answerProfileLevelID(ours: video.profileLevelID, offered: chosen),
            packetizationMode: video.packetizationMode,
            levelAsymmetryAllowed: chosen.levelAsymmetryAllowed,
            rtxPayloadType: video.rtxSSRC == nil ? nil : chosen.rtxPayloadType,
            feedback: ourFeedback.filter(chosen.feedback.contains))
        // FlexFEC when we have a FEC SSRC and the offer has flexfec-03 (Chromium receives it by default).
        if video.fecSSRC != nil, let fec = H264PayloadFormat.flexFECPayloadType(in: section),
           fec != format.payloadType, fec != format.rtxPayloadType
        {
            format.fecPayloadType = fec
        }
        let rtcpReducedSize = section.has("rtcp-rsize")

        var answer = JSEPSessionDescription(origin: origin)
        if transport.iceLite { answer.attributes.append(SDPAttribute("ice-lite")) }
        if offer.bundleGroup.contains(mid) { answer.attributes.append(SDPAttribute("group", "BUNDLE \(mid)")) }
        answer.attributes.append(SDPAttribute("msid-semantic", " WMS \(video.streamID)"))
        for (position, offeredSection) in offer.media.enumerated() {
            if position == index {
                answer.media.append(.video(
                    mid: mid, format: format, configuration: video, transport: transport, setup: setup,
                    transportCCExtensionID: transportCCID, rtcpReducedSize: rtcpReducedSize, direction: "sendonly",
                    absoluteCaptureTimeExtensionID: captureTimeID, playoutDelayExtensionID: playoutDelayID,
                    dependencyDescriptorExtensionID: descriptorID))
            } else {
                answer.media.append(rejected(offeredSection))
            }
        }
        let negotiated = NegotiatedVideo(
            mid: mid, format: format, transportCCExtensionID: transportCCID, rtcpReducedSize: rtcpReducedSize,
            remoteCredentials: remote.credentials, remoteICELite: remote.iceLite, remoteCandidates: remote.candidates,
            remoteFingerprint: remote.fingerprint, dtlsRole: role, absoluteCaptureTimeExtensionID: captureTimeID,
            playoutDelayExtensionID: playoutDelayID, dependencyDescriptorExtensionID: descriptorID)
        return (answer, negotiated)
    }

    /// The profile-level-id we answer: ours, but at no more than the offered level unless both sides allow level
    /// asymmetry (RFC 6184 section 8.2.2).
    static func answerProfileLevelID(ours: ProfileLevelID, offered: H264PayloadFormat) -> ProfileLevelID {
        guard !offered.levelAsymmetryAllowed, offered.profileLevelID.levelIdc < ours.levelIdc else { return ours }
        var answer = ours
        answer.levelIdc = offered.profileLevelID.levelIdc
        return answer
    }

    /// A rejected m-section: port 0, the first offered format, the mid kept (RFC 8829 section 5.3.1).
    static func rejected(_ section: JSEPMediaSection) -> JSEPMediaSection {
        var attributes: [SDPAttribute] = []
        if let mid = section.mid { attributes.append(SDPAttribute("mid", mid)) }
        attributes.append(SDPAttribute("inactive"))
        return JSEPMediaSection(kind: section.kind, port: 0, proto: section.proto,
                                formats: Array(section.formats.prefix(1)), connection: JSEPMediaSection.unspecifiedConnection,
                                attributes: attributes)
    }
}
