import DTLS
import Foundation
import H264
import TestSupport
import Testing
@testable import WebRTC

/// Issue 20, item 1: offers built to make the answerer's work grow as payload types x lines. Reading one must be
/// linear in its size and keep a bounded result. (The figure the issue names, under 50 ms for the worst 64 KiB offer,
/// is measured by the benchmark `Tests/Benchmarks/run-hostile-offers.sh`; the bound here is 20x looser so that a
/// loaded debug build passes, and the quadratic code took 4.65 s in release for the smallest case.)
@Suite struct HostileOfferTests {
    static let video = VideoSendConfiguration(
        profileLevelID: try! ProfileLevelID(string: "42e01f"), packetizationMode: 1, ssrc: 1, rtxSSRC: 2, cname: "c")
    static let local = LocalTransportDescription(
        credentials: try! ICECredentials(ufrag: "abcd", password: "0123456789abcdefghijklmn"),
        candidates: [], iceLite: true, fingerprint: try! DTLSFingerprint(sdpValue: ChromiumOffer.fingerprint))

    @Test(arguments: HostileOffers.all(from: ChromiumOffer.sdp).map(\.name))
    func aHostileOfferIsAnsweredQuicklyWithABoundedResult(_ name: String) throws {
        let sdp = try #require(HostileOffers.all(from: ChromiumOffer.sdp).first { $0.name == name }?.sdp)
        #expect(sdp.utf8.count <= 64 * 1024)
        #expect(HostileOffers.all(from: ChromiumOffer.sdp).count == 5, "every case fits 64 KiB")
        let started = ContinuousClock.now
        let offer = try JSEPSessionDescription(parsing: sdp)
        let section = try #require(offer.media.first { $0.kind == "video" })
        let formats = H264PayloadFormat.formats(in: section)
        let answer = try? VideoAnswerer.answer(offer, video: Self.video, transport: Self.local)
        let elapsed = ContinuousClock.now - started
        #expect(elapsed < .seconds(1), "\(name): \(elapsed)")
        #expect(formats.count <= 128)
        #expect(Set(formats.map(\.payloadType)).count == formats.count, "a repeated payload type counts once")
        for format in formats {
            #expect(format.feedback.count <= PayloadAttributes.maximumFeedbackValues)
            #expect(format.feedback.allSatisfy { $0.utf8.count <= PayloadAttributes.maximumFeedbackLength })
        }
        if let answer {
            #expect(answer.answer.sdp.utf8.count < 8 * 1024, "the answer stays small")
        }
    }

    @Test func aRepeatedPayloadTypeIsOneFormatWithItsParameters() throws {
        let sdp = HostileOffers.make(from: ChromiumOffer.sdp, repeats: 500, parameters: 100, wildcardFeedback: 3,
                                     feedbackLength: 4)
        let offer = try JSEPSessionDescription(parsing: sdp)
        let formats = H264PayloadFormat.formats(in: try #require(offer.media.first { $0.kind == "video" }))
        #expect(formats.map(\.payloadType) == [UInt8(HostileOffers.payloadType)])
        #expect(formats.first?.packetizationMode == 1)
        #expect(formats.first?.profileLevelID.description == "42e01f")
        #expect(formats.first?.feedback == ["0xxx", "1xxx", "2xxx"])
    }

    @Test func feedbackIsDistinctAndBoundedAndWildcardsFollowTheTypesOwn() throws {
        var section = JSEPMediaSection(kind: "video", port: 9, proto: JSEPMediaSection.webRTCProtocol, formats: ["96"])
        section.attributes = [SDPAttribute("rtpmap", "96 H264/90000"), SDPAttribute("rtcp-fb", "* nack"),
                              SDPAttribute("rtcp-fb", "96 nack pli"), SDPAttribute("rtcp-fb", "96 nack pli"),
                              SDPAttribute("rtcp-fb", "* nack"), SDPAttribute("rtcp-fb", "97 ccm fir"),
                              SDPAttribute("rtcp-fb", "96 " + String(repeating: "y", count: 65))]
        section.attributes += (0..<100).map { SDPAttribute("rtcp-fb", "96 v\($0)") }
        let format = try #require(H264PayloadFormat.formats(in: section).first)
        #expect(format.feedback.prefix(2) == ["nack pli", "v0"])
        #expect(format.feedback.count == PayloadAttributes.maximumFeedbackValues)
        #expect(!format.feedback.contains("ccm fir"))
    }

    @Test func candidatesAreBounded() throws {
        var section = JSEPMediaSection(kind: "video", port: 9, proto: JSEPMediaSection.webRTCProtocol, formats: ["96"])
        section.attributes = (0..<1000).map {
            SDPAttribute("candidate", "\($0) 1 udp 2122260223 10.0.\($0 / 250).\($0 % 250 + 1) 5000 typ host")
        }
        #expect(section.candidates.count == JSEPMediaSection.maximumCandidates)
        #expect(section.candidates.first?.foundation == "0")
    }

    /// Issue 20, item 8: the answer repeats the offer's mids, so one that is not a token (a tab, a space, too long)
    /// is refused with a clear error instead of being echoed.
    @Test func aMidThatIsNotATokenIsRefused() throws {
        for bad in ["0\t", "a b", String(repeating: "m", count: 33), ""] {
            let offer = try JSEPSessionDescription(parsing: ChromiumOffer.sdp.replacingOccurrences(of: "a=mid:1\r", with: "a=mid:\(bad)\r"))
            #expect(throws: JSEPError.self) { try VideoAnswerer.answer(offer, video: Self.video, transport: Self.local) }
            do {
                _ = try VideoAnswerer.answer(offer, video: Self.video, transport: Self.local)
            } catch {
                #expect("\(error)".contains("mid must be a token"), "\(error)")
                #expect(!"\(error)".contains("\t"))
            }
        }
        let good = try JSEPSessionDescription(parsing: ChromiumOffer.sdp.replacingOccurrences(of: "a=mid:1\r", with: "a=mid:video-1\r"))
        let (answer, _) = try VideoAnswerer.answer(good, video: Self.video, transport: Self.local)
        #expect(answer.media.contains { $0.mid == "video-1" })
    }
}
