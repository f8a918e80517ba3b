import Testing
@testable import WebRTC

/// Issue 25, items 1 and 2 in JSEP: `abs-capture-time` and `playout-delay` answered only when offered (and wanted),
/// offered by our WHIP offer, read back from the answer; an ID shared by two URIs, or outside 1-14, is not used.
@Suite struct HeaderExtensionNegotiationTests {
    static let captureURI = VideoSendConfiguration.absoluteCaptureTimeURI
    static let delayURI = VideoSendConfiguration.playoutDelayURI
    static let transportURI = VideoSendConfiguration.transportCCURI

    static func video(capture: Bool = true, delay: Bool = true) -> VideoSendConfiguration {
        var video = JSEPNegotiationTests.video()
        video.absoluteCaptureTime = capture
        video.playoutDelay = delay
        return video
    }

    /// Chromium's offer (playout-delay at 5, no abs-capture-time) with `extra` extmap lines in its video section.
    static func chromiumOffer(adding extra: [String] = [], removing: String? = nil) throws -> JSEPSessionDescription {
        var lines = ChromiumOffer.sdp.components(separatedBy: "\r\n")
        if let removing { lines.removeAll { $0.contains(removing) } }
        let index = try #require(lines.firstIndex { $0.hasPrefix("a=extmap:14 urn:ietf:params:rtp-hdrext:toffset") })
        lines.insert(contentsOf: extra, at: index)
        return try JSEPSessionDescription(parsing: lines.joined(separator: "\r\n"))
    }

    /// An endpoint's answer that echoes our offer (its extensions, IDs and lines): receiving, DTLS passive; with
    /// `removing`, the attributes it drops.
    static func echoedAnswer(
        _ offer: JSEPSessionDescription, removing: (SDPAttribute) -> Bool = { _ in false }
    ) -> JSEPSessionDescription {
        var answer = offer
        answer.media[0].attributes = offer.media[0].attributes.compactMap { attribute in
            if removing(attribute) { return nil }
            switch attribute.name {
            case "sendonly": return SDPAttribute("recvonly")
            case "setup": return SDPAttribute("setup", "passive")
            default: return attribute
            }
        }
        return answer
    }

    static func answer(_ offer: JSEPSessionDescription, video: VideoSendConfiguration = video()) throws
        -> (sdp: String, negotiated: NegotiatedVideo)
    {
        let (answer, negotiated) = try VideoAnswerer.answer(
            offer, video: video, transport: JSEPNegotiationTests.serverTransport)
        return (answer.sdp, negotiated)
    }

    @Test func theAnswerHasWhatTheOfferHasAndWeWant() throws {
        let offer = try Self.chromiumOffer(adding: ["a=extmap:9 \(Self.captureURI)"])
        let (sdp, negotiated) = try Self.answer(offer)
        #expect(sdp.contains("a=extmap:3 \(Self.transportURI)\r\na=extmap:9 \(Self.captureURI)\r\na=extmap:5 \(Self.delayURI)\r\n"))
        #expect(negotiated.transportCCExtensionID == 3)
        #expect(negotiated.absoluteCaptureTimeExtensionID == 9)
        #expect(negotiated.playoutDelayExtensionID == 5)
        // Not wanted: not answered.
        let (plain, unwanted) = try Self.answer(offer, video: Self.video(capture: false, delay: false))
        #expect(!plain.contains(Self.captureURI) && !plain.contains(Self.delayURI))
        #expect(unwanted.absoluteCaptureTimeExtensionID == nil && unwanted.playoutDelayExtensionID == nil)
    }

    @Test func anOfferWithoutThemGetsNone() throws {
        let (sdp, negotiated) = try Self.answer(try Self.chromiumOffer(removing: "playout-delay"))
        #expect(!sdp.contains(Self.captureURI) && !sdp.contains(Self.delayURI))
        #expect(negotiated.absoluteCaptureTimeExtensionID == nil && negotiated.playoutDelayExtensionID == nil)
        #expect(negotiated.transportCCExtensionID == 3)
    }

    static let badOffers: [([String], String)] = [
        // abs-capture-time given the ID Chromium gives playout-delay: neither is used (which would the peer read?).
        (["a=extmap:5 \(captureURI)"], "shared with playout-delay"),
        (["a=extmap:3 \(captureURI)"], "shared with transport-cc"),
        (["a=extmap:15 \(captureURI)"], "15 is not one-byte"),
        (["a=extmap:0 \(captureURI)"], "0 is padding"),
        (["a=extmap:200 \(captureURI)"], "two-byte form only"),
    ]

    @Test(arguments: badOffers)
    func anIDSharedOrOutOfRangeIsNotUsed(extra: [String], why: String) throws {
        let (sdp, negotiated) = try Self.answer(try Self.chromiumOffer(adding: extra))
        #expect(negotiated.absoluteCaptureTimeExtensionID == nil, "\(why)")
        #expect(!sdp.contains(Self.captureURI), "\(why)")
        for id in [negotiated.transportCCExtensionID, negotiated.playoutDelayExtensionID].compactMap({ $0 }) {
            #expect(!extra.contains { $0.hasPrefix("a=extmap:\(id) ") }, "\(why): id \(id) is shared")
        }
        if why.contains("shared with playout-delay") { #expect(negotiated.playoutDelayExtensionID == nil) }
        if why.contains("shared with transport-cc") { #expect(negotiated.transportCCExtensionID == nil) }
    }

    @Test func ourOfferHasBothAndTheAnswerIsReadBack() throws {
        let video = Self.video()
        let offer = VideoOfferer.offer(video: video, transport: VideoOffererTests.clientTransport)
        #expect(offer.sdp.contains(
            "a=extmap:3 \(Self.transportURI)\r\na=extmap:4 \(Self.captureURI)\r\na=extmap:5 \(Self.delayURI)\r\n"))
        // An answering endpoint that echoes our offer's extensions: both negotiated.
        var answer = Self.echoedAnswer(offer)
        let negotiated = try VideoOfferer.accept(try JSEPSessionDescription(parsing: answer.sdp), video: video)
        #expect(negotiated.absoluteCaptureTimeExtensionID == 4 && negotiated.playoutDelayExtensionID == 5)
        // An answer that gives abs-capture-time the transport-cc's ID: neither is used.
        answer.media[0].attributes = answer.media[0].attributes.map {
            $0.name == "extmap" && ($0.value ?? "").hasSuffix(Self.captureURI) ? SDPAttribute("extmap", "3 \(Self.captureURI)") : $0
        }
        let colliding = try VideoOfferer.accept(try JSEPSessionDescription(parsing: answer.sdp), video: video)
        #expect(colliding.absoluteCaptureTimeExtensionID == nil && colliding.transportCCExtensionID == nil)
        #expect(colliding.playoutDelayExtensionID == 5)
    }

    @Test func aConfigurationGivingTwoExtensionsOneIDOffersTheFirstOnly() {
        var video = Self.video()
        video.offerAbsoluteCaptureTimeExtensionID = 3
        video.offerPlayoutDelayExtensionID = 15
        #expect(video.offeredExtensions.map(\.uri) == [Self.transportURI])
        let sdp = VideoOfferer.offer(video: video, transport: VideoOffererTests.clientTransport).sdp
        #expect(!sdp.contains(Self.captureURI) && !sdp.contains(Self.delayURI))
    }

    // MARK: The dependency descriptor (issue 23, item 1)

    static let descriptorURI = VideoSendConfiguration.dependencyDescriptorURI

    /// Chromium offers the descriptor when its page asks (`setHeaderExtensionsToNegotiate`; Chromium 156 gives it
    /// the first free ID, 12 in this recorded offer): answered with temporal layers, not without; an offer without
    /// it gets none.
    @Test func theDescriptorIsAnsweredWhenOfferedAndWanted() throws {
        var video = Self.video()
        video.dependencyDescriptor = true
        let offer = try Self.chromiumOffer(adding: ["a=extmap:12 \(Self.descriptorURI)"])
        let (sdp, negotiated) = try Self.answer(offer, video: video)
        #expect(sdp.contains("a=extmap:12 \(Self.descriptorURI)\r\n"))
        #expect(negotiated.dependencyDescriptorExtensionID == 12)
        let (plain, unwanted) = try Self.answer(offer)
        #expect(!plain.contains(Self.descriptorURI) && unwanted.dependencyDescriptorExtensionID == nil)
        let (none, notOffered) = try Self.answer(try Self.chromiumOffer(), video: video)
        #expect(!none.contains(Self.descriptorURI) && notOffered.dependencyDescriptorExtensionID == nil)
        // Given playout-delay's ID: neither is used.
        let (_, shared) = try Self.answer(try Self.chromiumOffer(adding: ["a=extmap:5 \(Self.descriptorURI)"]), video: video)
        #expect(shared.dependencyDescriptorExtensionID == nil && shared.playoutDelayExtensionID == nil)
    }

    /// Our WHIP offer carries it at 6 with temporal layers; the answer's ID is read back.
    @Test func ourOfferCarriesTheDescriptor() throws {
        var video = Self.video()
        video.dependencyDescriptor = true
        let offer = VideoOfferer.offer(video: video, transport: VideoOffererTests.clientTransport)
        #expect(offer.sdp.contains("a=extmap:5 \(Self.delayURI)\r\na=extmap:6 \(Self.descriptorURI)\r\n"))
        var answer = Self.echoedAnswer(offer)
        let negotiated = try VideoOfferer.accept(try JSEPSessionDescription(parsing: answer.sdp), video: video)
        #expect(negotiated.dependencyDescriptorExtensionID == 6)
        // An SFU that does not take it leaves it out of its answer: not sent.
        answer.media[0].attributes.removeAll { ($0.value ?? "").hasSuffix(Self.descriptorURI) }
        let without = try VideoOfferer.accept(try JSEPSessionDescription(parsing: answer.sdp), video: video)
        #expect(without.dependencyDescriptorExtensionID == nil)
        #expect(!VideoOfferer.offer(video: Self.video(), transport: VideoOffererTests.clientTransport).sdp
            .contains(Self.descriptorURI))
    }
}
