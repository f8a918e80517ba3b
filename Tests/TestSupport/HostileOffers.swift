/// Offers that are valid SDP but built to make a parser do work out of proportion to their size (issue 20, item 1):
/// a payload type repeated thousands of times on the `m=` line, one `a=fmtp` with thousands of parameters, and
/// thousands of `a=rtcp-fb:*` lines. Made from any valid offer by rewriting its first `m=video` line.
public enum HostileOffers {
    /// The cases the issue measured, each within `maximumBytes`.
    public static func all(from offer: String, maximumBytes: Int = 64 * 1024) -> [(name: String, sdp: String)] {
        [
            ("3,000 x '35' and one a=fmtp:35 of 3,000 parameters (15 KB)",
             make(from: offer, repeats: 3_000, parameters: 3_000, wildcardFeedback: 0, feedbackLength: 0)),
            ("10,500 x '35' and one a=fmtp:35 filling the rest of 64 KiB with parameters",
             filled(from: offer, repeats: 10_500, maximumBytes: maximumBytes)),
            ("1,000 x '35' and 3,000 a=rtcp-fb:* lines",
             make(from: offer, repeats: 1_000, parameters: 0, wildcardFeedback: 3_000, feedbackLength: 1)),
            ("2,000 x '35' and 20 a=rtcp-fb:* lines of 2,000 bytes",
             make(from: offer, repeats: 2_000, parameters: 0, wildcardFeedback: 20, feedbackLength: 2_000)),
            ("127 distinct payload types, each with H264 rtpmap and 2,000 a=rtcp-fb:* lines",
             distinctTypes(from: offer, wildcardFeedback: 2_000)),
        ].filter { $0.1.utf8.count <= maximumBytes }
    }

    /// The payload type the repeated cases use (H.264; no offer of ours or Chromium's uses it).
    public static let payloadType = 35

    /// `offer` with its `m=video` line's formats replaced by `payloadType` repeated (an H.264 format), an `a=fmtp`
    /// for it with `parameters` extra parameters, and `wildcardFeedback` distinct `a=rtcp-fb:*` lines of `feedbackLength` characters each.
    public static func make(from offer: String, repeats: Int, parameters: Int, wildcardFeedback: Int,
                            feedbackLength: Int) -> String {
        var extra = "a=rtpmap:\(payloadType) H264/90000\r\n"
        extra += "a=fmtp:\(payloadType) " + Array(repeating: "a", count: parameters).map { $0 + ";" }.joined()
            + "packetization-mode=1;profile-level-id=42e01f\r\n"
        for index in 0..<wildcardFeedback {
            let value = String(index)
            extra += "a=rtcp-fb:* " + value + String(repeating: "x", count: max(0, feedbackLength - value.count)) + "\r\n"
        }
        return rewriteVideo(offer, formats: Array(repeating: String(payloadType), count: repeats), extra: extra)
    }

    /// `make` with as many `a=fmtp` parameters as fit in `maximumBytes` (each is two bytes, `a;`).
    public static func filled(from offer: String, repeats: Int, maximumBytes: Int) -> String {
        let base = make(from: offer, repeats: repeats, parameters: 0, wildcardFeedback: 0, feedbackLength: 0)
        return make(from: offer, repeats: repeats, parameters: max(0, (maximumBytes - base.utf8.count) / 2),
                    wildcardFeedback: 0, feedbackLength: 0)
    }

    /// Every payload type from 0 to 126 as H.264 (mode 1, 42e01f) with `wildcardFeedback` `a=rtcp-fb:*` lines.
    public static func distinctTypes(from offer: String, wildcardFeedback: Int) -> String {
        var extra = ""
        for type in 0..<127 {
            extra += "a=rtpmap:\(type) H264/90000\r\na=fmtp:\(type) packetization-mode=1;profile-level-id=42e01f\r\n"
        }
        for index in 0..<wildcardFeedback { extra += "a=rtcp-fb:* f\(index)\r\n" }
        return rewriteVideo(offer, formats: (0..<127).map(String.init), extra: extra)
    }

    /// Replaces the first `m=video` line's formats and puts `extra` right after it.
    static func rewriteVideo(_ offer: String, formats: [String], extra: String) -> String {
        var lines = offer.components(separatedBy: "\r\n")
        guard let index = lines.firstIndex(where: { $0.hasPrefix("m=video ") }) else { return offer }
        let fields = lines[index].split(separator: " ")
        lines[index] = fields.prefix(3).joined(separator: " ") + " " + formats.joined(separator: " ")
        lines[index] += "\r\n" + String(extra.dropLast())  // "\r\n" is one Character
        return lines.joined(separator: "\r\n")
    }
}
