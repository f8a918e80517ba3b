/// Text a peer sent (an SDP line, an HTTP reply, a header), made safe to put in an error message or a log line:
/// bounded, on one line, with control characters escaped. A peer controls this text, so it must not be able to
/// flood a terminal or a log, forge a line, or hide what it sent behind escape sequences.
public enum PeerText {
    /// The most characters of peer text an excerpt keeps (a few hundred: enough to recognise the input).
    public static let maximumExcerptLength = 200

    /// `text` cut to `limit` characters with `...` and its length added when cut, each control character
    /// (C0, DEL, C1) written as `\xHH` or `\u{HHHH}`.
    /// - Parameters:
    ///   - text: What the peer sent.
    ///   - limit: The most characters kept.
    public static func excerpt(_ text: some StringProtocol, limit: Int = maximumExcerptLength) -> String {
        var result = ""
        var kept = 0
        var total = 0
        for scalar in text.unicodeScalars {
            total += 1
            guard kept < limit else { continue }
            kept += 1
            switch scalar.value {
            case 0..<0x20, 0x7F: result += "\\x" + hex(scalar.value, digits: 2)
            case 0x80..<0xA0, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069:
                result += "\\u{" + hex(scalar.value, digits: 4) + "}"  // C1 controls, line separators, bidi overrides
            default: result.unicodeScalars.append(scalar)
            }
        }
        return total > limit ? result + "... (\(total) characters)" : result
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
