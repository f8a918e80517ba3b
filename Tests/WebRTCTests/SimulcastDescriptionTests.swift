import Testing
@testable import WebRTC

/// `a=rid` and `a=simulcast` (RFC 8851, RFC 8853; issue 23, item 2): our offer's streams written and read back, an
/// answer's kept streams read (paused ones marked, alternatives beyond the first ignored), and each malformed or
/// inconsistent line a clear error naming it.
@Suite struct SimulcastDescriptionTests {
    static func section(_ lines: [String]) -> JSEPMediaSection {
        var section = JSEPMediaSection(kind: "video", port: 9, proto: "UDP/TLS/RTP/SAVPF", formats: ["96"])
        section.attributes = lines.map { SDPAttribute(parsing: $0.dropFirst(2)) }
        return section
    }

    @Test func ourStreamsAreWrittenAndReadBack() throws {
        let ours = SimulcastDescription(
            direction: .send, streams: ["q", "h", "f"].map { SimulcastDescription.Stream(rid: $0) })
        #expect(ours.attributes.map(\.description) == [
            "rid:q send", "rid:h send", "rid:f send", "simulcast:send q;h;f",
        ])
        var section = Self.section([])
        section.attributes = ours.attributes
        #expect(try SimulcastDescription.read(from: section, direction: .send) == ours)
        #expect(try SimulcastDescription.read(from: section, direction: .recv) == nil)
        #expect(try SimulcastDescription.read(from: Self.section(["a=mid:0"]), direction: .send) == nil)
    }

    /// An answer (Janus's shape): its own order, a paused stream, restrictions on a=rid, alternatives, and the other
    /// direction in the same line.
    @Test func anAnswersStreamsAreRead() throws {
        let section = Self.section([
            "a=rid:f recv", "a=rid:h recv pt=96;max-width=640", "a=rid:q recv", "a=rid:x recv",
            "a=simulcast:recv f;~h,x;q",
        ])
        let read = try #require(try SimulcastDescription.read(from: section, direction: .recv))
        #expect(read.streams == [.init(rid: "f"), .init(rid: "h", paused: true), .init(rid: "q")])
        let both = Self.section(["a=rid:a send", "a=rid:b recv", "a=simulcast:send a recv b"])
        #expect(try SimulcastDescription.read(from: both, direction: .send)?.streams.map(\.rid) == ["a"])
        #expect(try SimulcastDescription.read(from: both, direction: .recv)?.streams.map(\.rid) == ["b"])
    }

    static let bad: [([String], String)] = [
        (["a=simulcast:send"], "needs '<send|recv> <streams>'"),
        (["a=simulcast:sideways q"], "direction must be send or recv"),
        (["a=rid:q send", "a=simulcast:send q", "a=simulcast:send q"], "lists the send streams twice"),
        (["a=rid:q", "a=simulcast:send q"], "needs '<id> <send|recv>'"),
        (["a=rid:q sideways", "a=simulcast:send q"], "needs '<id> <send|recv>'"),
        (["a=rid:q.1 send", "a=simulcast:send q.1"], "id must be 1-16 letters"),
        (["a=rid:abcdefghijklmnopq send", "a=simulcast:send abcdefghijklmnopq"], "id must be 1-16 letters"),
        (["a=rid:q send", "a=rid:q send", "a=simulcast:send q"], "names q twice"),
        (["a=rid:q send", "a=simulcast:send q;;h"], "has an empty stream"),
        (["a=rid:q send", "a=simulcast:send q;h"], "names h without an a=rid:h send"),
        (["a=rid:q recv", "a=simulcast:send q"], "names q without an a=rid:q send"),
        (["a=rid:q send", "a=simulcast:send q;q"], "names q twice"),
        ((0..<9).map { "a=rid:r\($0) send" } + ["a=simulcast:send " + (0..<9).map { "r\($0)" }.joined(separator: ";")],
         "lists more than 8 streams"),
    ]

    @Test(arguments: bad)
    func aMalformedOrInconsistentLineIsAClearError(lines: [String], reason: String) {
        do {
            let read = try SimulcastDescription.read(from: Self.section(lines), direction: .send)
            Issue.record("read \(String(describing: read)) from \(lines)")
        } catch {
            #expect("\(error)".contains(reason), "\(error)")
        }
    }

    @Test func validIDsAreLettersDigitsDashAndUnderscore() {
        for good in ["q", "hi-res_2", String(repeating: "a", count: 16)] { #expect(SimulcastDescription.isValidRID(good)) }
        for bad in ["", "a b", "é", "a;b", String(repeating: "a", count: 17), "~q"] {
            #expect(!SimulcastDescription.isValidRID(bad), "\(bad)")
        }
    }
}

/// Our WHIP offer with simulcast and the answers it meets (issue 23, items 2-3).
@Suite struct SimulcastOfferTests {
    static func video(rtx: Bool = true) -> VideoSendConfiguration {
        var video = JSEPNegotiationTests.video()
        if !rtx { video.rtxSSRC = nil }
        video.simulcast = SimulcastDescription(direction: .send, streams: ["f", "h", "q"].map { .init(rid: $0) })
        return video
    }

    /// An endpoint's answer made from our offer: the direction and setup turned, `a=rid ... recv` and
    /// `a=simulcast:recv` for `kept` (in Janus's form), `dropping` extension URIs left out.
    static func answer(to offer: JSEPSessionDescription, kept: [String]?, dropping: [String] = []) throws
        -> JSEPSessionDescription {
        var answer = HeaderExtensionNegotiationTests.echoedAnswer(offer) { attribute in
            attribute.name == "rid" || attribute.name == "simulcast"
                || attribute.name == "extmap" && dropping.contains { (attribute.value ?? "").hasSuffix($0) }
        }
        if let kept {
            answer.media[0].attributes += SimulcastDescription(
                direction: .recv, streams: kept.map { .init(rid: $0) }).attributes
        }
        return try JSEPSessionDescription(parsing: answer.sdp)
    }

    @Test func theOfferNamesTheStreamsHighestFirstWithoutSSRCs() throws {
        let offer = VideoOfferer.offer(video: Self.video(), transport: VideoOffererTests.clientTransport)
        let sdp = offer.sdp
        #expect(sdp.contains("a=rid:f send\r\na=rid:h send\r\na=rid:q send\r\na=simulcast:send f;h;q\r\n"))
        #expect(sdp.contains("a=extmap:7 urn:ietf:params:rtp-hdrext:sdes:mid\r\n"))
        #expect(sdp.contains("a=extmap:8 urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id\r\n"))
        #expect(sdp.contains("a=extmap:9 urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id\r\n"))
        #expect(!sdp.contains("a=ssrc:") && !sdp.contains("a=ssrc-group:"))
        // Without RTX no repaired-rtp-stream-id; without simulcast none of the three and the SSRCs as before.
        #expect(!VideoOfferer.offer(video: Self.video(rtx: false), transport: VideoOffererTests.clientTransport).sdp
            .contains("repaired-rtp-stream-id"))
        let single = VideoOfferer.offer(video: JSEPNegotiationTests.video(), transport: VideoOffererTests.clientTransport).sdp
        #expect(!single.contains("a=rid:") && !single.contains("sdes:mid") && single.contains("a=ssrc:"))
    }

    @Test func theAnswersStreamsAreKeptInOurOrder() throws {
        let video = Self.video()
        let offer = VideoOfferer.offer(video: video, transport: VideoOffererTests.clientTransport)
        let all = try VideoOfferer.accept(try Self.answer(to: offer, kept: ["q", "h", "f"]), video: video)
        #expect(all.simulcastRIDs == ["f", "h", "q"])
        #expect(all.midExtensionID == 7 && all.ridExtensionID == 8 && all.repairedRIDExtensionID == 9)
        // An SFU that drops a layer, or pauses one: fewer layers.
        #expect(try VideoOfferer.accept(try Self.answer(to: offer, kept: ["q", "f"]), video: video).simulcastRIDs == ["f", "q"])
        var paused = try Self.answer(to: offer, kept: nil)
        paused.media[0].attributes += [SDPAttribute("rid", "f recv"), SDPAttribute("rid", "q recv"),
                                       SDPAttribute("simulcast", "recv f;~q")]
        #expect(try VideoOfferer.accept(paused, video: video).simulcastRIDs == ["f"])
        // No a=simulcast, or no rtp-stream-id extension in the answer: no simulcast.
        let none = try VideoOfferer.accept(try Self.answer(to: offer, kept: nil), video: video)
        #expect(none.simulcastRIDs == nil && none.ridExtensionID == nil)
        let noRID = try VideoOfferer.accept(
            try Self.answer(to: offer, kept: ["f", "h", "q"], dropping: ["sdes:rtp-stream-id"]), video: video)
        #expect(noRID.simulcastRIDs == nil)
        // Streams we never offered are not sent.
        #expect(try VideoOfferer.accept(try Self.answer(to: offer, kept: ["x"]), video: video).simulcastRIDs == nil)
    }

    @Test func aMalformedSimulcastAnswerIsAClearError() throws {
        let video = Self.video()
        let offer = VideoOfferer.offer(video: video, transport: VideoOffererTests.clientTransport)
        var answer = try Self.answer(to: offer, kept: nil)
        answer.media[0].attributes.append(SDPAttribute("simulcast", "recv f;h"))  // no a=rid lines
        #expect(throws: JSEPError.self) { try VideoOfferer.accept(answer, video: video) }
    }
}
