import Foundation
import Testing
@testable import WebRTC

/// Inputs the `jsep` fuzz target (Tests/Fuzz) found: each trapped a WHIP/WHEP endpoint with one HTTP request.
@Suite struct JSEPFuzzRegressionTests {
    /// Tests/Fuzz/Regressions/jsep/m-video-slash-port: `m=video / ...` made `split(separator: "/")[0]` index an
    /// empty array (the same bug issue 11 found in the SDP module's `receive --sdp`).
    @Test func mediaLineWithASlashForAPortIsAnError() {
        let offer = ChromiumOffer.sdp.replacingOccurrences(of: "m=video 9 ", with: "m=video / ")
        #expect(throws: JSEPError.self) { try JSEPSessionDescription(parsing: offer) }
        let line = "video / UDP/TLS/RTP/SAVPF 96"
        #expect(throws: JSEPError.malformedLine(number: 7, line: "m=" + line, reason: "port '/'")) {
            try JSEPSessionDescription.parseMediaLine(line[...], number: 7)
        }
    }

    /// The same pattern in `a=extmap:/ <uri>`: the entry is skipped instead of trapping.
    @Test func extmapWithASlashForAnIDIsSkipped() throws {
        let offer = try JSEPSessionDescription(parsing: ChromiumOffer.sdp.replacingOccurrences(
            of: "a=extmap:3 ", with: "a=extmap:/ "))
        let video = try #require(offer.media.first { $0.kind == "video" })
        #expect(!video.headerExtensions.contains { $0.id == 3 })
        #expect(!video.headerExtensions.isEmpty)
    }

    /// Tests/Fuzz/Regressions/jsep/fmtp-bare-equals: an `a=fmtp` parameter that is only "=" split into nothing,
    /// and `keyValue[0]` trapped (found in 20 s by the CI-length run).
    @Test func fmtpParameterOfABareEqualsSignIsKeptEmpty() throws {
        let offer = try JSEPSessionDescription(parsing: ChromiumOffer.sdp.replacingOccurrences(
            of: "a=fmtp:102 level-asymmetry-allowed=1;", with: "a=fmtp:102 level-asymmetry-allowed=1;=;;"))
        let video = try #require(offer.media.first { $0.kind == "video" })
        let parameters = video.formatParameters(102)
        #expect(parameters["packetization-mode"] == "1" && parameters[""] == "")
        #expect(H264PayloadFormat.formats(in: video).first?.payloadType == 102)
    }
}
