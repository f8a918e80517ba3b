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
