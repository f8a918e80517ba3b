/// A trickle ICE SDP fragment (RFC 8840 section 9, media type `application/trickle-ice-sdpfrag`): what a WHIP or
/// WHEP client sends in a `PATCH` (RFC 9725 sections 4.3-4.4) to add candidates to a session or to restart ICE, and
/// what the server answers a restart with.
///
/// ```
/// a=ice-options:trickle ice2
/// a=group:BUNDLE 0
/// m=video 9 UDP/TLS/RTP/SAVPF 0
/// a=mid:0
/// a=ice-ufrag:EsAw
/// a=ice-pwd:P2uYro0UCOQ4zxjKXaWCBui1
/// a=candidate:1387637174 1 udp 2122260223 192.0.2.1 61764 typ host generation 0 ufrag EsAw
/// a=end-of-candidates
/// ```
///
/// Read leniently where RFC 8840 leaves room (the credentials at session or media level, LF or CRLF, attributes
/// we do not use skipped) and strictly where a mistake would be silent: `a=ice-ufrag` without `a=ice-pwd` (or the
/// reverse), two different values of either, a mid that is not a token, a candidate that does not parse, more than `maximumCandidates`
/// candidates, more than one m-line, a control character inside a line, or a line that is not `<letter>=<value>` are
/// refused with the line named.
public struct TrickleICEFragment: Hashable, Sendable {
    /// The ICE credentials the fragment names (`a=ice-ufrag`/`a=ice-pwd`): the generation its candidates belong to,
    /// and in a restart the new credentials. Nil when the fragment carries neither.
    public var credentials: ICECredentials?
    /// The media stream the candidates are for (`a=mid`), when given.
    public var mid: String?
    /// The candidates, in order.
    public var candidates: [ICECandidate]
    /// Whether the sender has gathered all its candidates (`a=end-of-candidates`).
    public var endOfCandidates: Bool

    /// The most candidates one fragment may carry: a browser gathers a handful per interface and server.
    public static let maximumCandidates = 64
    /// The most lines read (a fragment of `maximumCandidates` candidates has about 70).
    public static let maximumLines = 256
    /// The media type of a fragment in HTTP (RFC 8840 section 9.1).
    public static let mediaType = "application/trickle-ice-sdpfrag"

    /// Creates a fragment.
    /// - Parameters:
    ///   - credentials: the generation's credentials, or nil.
    ///   - mid: the media stream, or nil.
    ///   - candidates: the candidates.
    ///   - endOfCandidates: whether gathering is complete.
    public init(credentials: ICECredentials?, mid: String? = nil, candidates: [ICECandidate] = [],
                endOfCandidates: Bool = false) {
        self.credentials = credentials
        self.mid = mid
        self.candidates = candidates
        self.endOfCandidates = endOfCandidates
    }

    /// Parses a fragment.
    /// - Parameter text: the body of a `PATCH` (or of its reply).
    /// - Throws: `JSEPError.malformedLine` naming the line, `JSEPError.missing` for a lone ufrag or password.
    public init(parsing text: String) throws(JSEPError) {
        var ufrag: String?
        var password: String?
        var mid: String?
        var candidates: [ICECandidate] = []
        var endOfCandidates = false
        var mediaLines = 0
        var number = 0
        for raw in text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            number += 1
            var line = raw
            while line.last == "\r" { line = line.dropLast() }  // a line end of several CRs is one line end
            if line.allSatisfy({ $0 == " " || $0 == "\t" || $0 == "\r" }) { continue }
            func bad(_ reason: String) -> JSEPError {
                .malformedLine(number: number, line: PeerText.excerpt(String(line)), reason: reason)
            }
            guard number <= Self.maximumLines else { throw bad("more than \(Self.maximumLines) lines") }
            // SDP text holds no CR, LF or NUL (RFC 8866 section 9); no other control character either but a tab.
            guard !line.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }) else {
                throw bad("a control character inside the line")
            }
            guard line.count >= 2, let type = line.first, type.isASCII, type.isLetter,
                  line[line.index(after: line.startIndex)] == "="
            else { throw bad("not <letter>=<value>") }
            let value = line.dropFirst(2)
            if type == "m" {
                mediaLines += 1
                guard mediaLines == 1 else { throw bad("more than one m-line (we send one media stream)") }
                continue
            }
            guard type == "a" else { continue }  // v=, o=, s=, t=, c= lines of a fuller fragment: nothing for ICE
            let colon = value.firstIndex(of: ":")
            let name = colon.map { value[..<$0] } ?? value
            let argument = colon.map { String(value[value.index(after: $0)...]) } ?? ""
            func single(_ current: String?, _ label: String) throws(JSEPError) -> String {
                if let current, current != argument { throw bad("a second, different \(label)") }
                return argument
            }
            switch name {
            case "ice-ufrag": ufrag = try single(ufrag, "ice-ufrag")
            case "ice-pwd": password = try single(password, "ice-pwd")
            case "mid":
                guard JSEPMediaSection.isValidMid(argument) else {
                    throw bad("a mid must be a token of 1-\(JSEPMediaSection.maximumMidLength) characters (RFC 5888)")
                }
                mid = try single(mid, "mid")
            case "end-of-candidates": endOfCandidates = true
            case "candidate":
                guard candidates.count < Self.maximumCandidates else {
                    throw bad("more than \(Self.maximumCandidates) candidates")
                }
                do {
                    candidates.append(try ICECandidate(parsing: argument))
                } catch {
                    if case .malformedLine(_, _, let reason) = error { throw bad(reason) }
                    throw bad("unreadable candidate")
                }
            default: continue  // ice-options, group, anything else: not needed to add candidates or restart
            }
        }
        switch (ufrag, password) {
        case (nil, nil): credentials = nil
        case (let ufrag?, let password?):
            do {
                credentials = try ICECredentials(ufrag: ufrag, password: password)
            } catch {
                throw .malformedLine(number: 0, line: "a=ice-ufrag/a=ice-pwd", reason: "\(error)")
            }
        case (nil, _?): throw .missing("a=ice-ufrag beside its a=ice-pwd")
        case (_?, nil): throw .missing("a=ice-pwd beside its a=ice-ufrag")
        }
        self.mid = mid
        self.candidates = candidates
        self.endOfCandidates = endOfCandidates
    }

    /// The fragment as text, CRLF line ends: the credentials and `a=mid` under one m-line when a mid is given (as
    /// RFC 8840 section 9.1's example), then the candidates and `a=end-of-candidates`. The password is in it: send it
    /// only to the peer.
    public var sdp: String {
        var lines: [String] = ["a=ice-options:trickle"]
        if let mid {
            lines.append("a=group:BUNDLE \(mid)")
            lines.append("m=video 9 UDP/TLS/RTP/SAVPF 0")
            lines.append("a=mid:\(mid)")
        }
        if let credentials {
            lines.append("a=ice-ufrag:\(credentials.ufrag)")
            lines.append("a=ice-pwd:\(credentials.password)")
        }
        lines += candidates.map { "a=\($0)" }
        if endOfCandidates { lines.append("a=end-of-candidates") }
        return lines.map { $0 + "\r\n" }.joined()
    }
}
