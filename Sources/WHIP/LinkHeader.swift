/// The parser of HTTP `Link` header fields (RFC 8288 section 3), as a WHIP endpoint uses them to hand out its
/// STUN and TURN servers (RFC 9725 section 4.6):
///
/// ```
/// Link: <stun:stun.example.net>; rel="ice-server"
/// Link: <turn:turn.example.net?transport=udp>; rel="ice-server"; username="user"; credential="myPassword"
/// ```
///
/// A field is a comma-separated list of link-values (RFC 9110 section 5.6.1; empty elements are allowed), and a
/// reply may repeat the field: `parse` reads every field in order. Commas inside `<...>` and inside quoted strings
/// belong to the link. Pure and linear in its input: at most `maximumInputLength` bytes are read, and a malformed
/// link is skipped up to the next comma outside quotes and brackets, with an explanation, instead of failing.
///
/// ```
/// link-value = "<" URI-Reference ">" *( OWS ";" OWS link-param )
/// link-param = token BWS [ "=" BWS ( token / quoted-string ) ]
/// ```
public enum LinkHeader {
    /// The most bytes of `Link` field values read, all fields together (16 KiB: far more than the few links an
    /// endpoint sends, little enough to bound the work a hostile reply causes). Beyond it, the link that crosses
    /// the bound and everything after it are not read.
    public static let maximumInputLength = 16 * 1024
    /// The most explanations of skipped text kept (the first ones; `LinkHeaderParse.malformedCount` counts all).
    public static let maximumExplanations = 8

    /// Reads the links of `Link` header field values.
    /// - Parameters:
    ///   - fieldValues: The value of every `Link` field of a reply, in order.
    /// - Returns: The links, and why some were skipped.
    public static func parse(_ fieldValues: some Sequence<String>) -> LinkHeaderParse {
        var result = LinkHeaderParse()
        var remaining = maximumInputLength
        var total = 0
        var truncated = false
        var position = 0  // links seen (malformed included), to name a link in an explanation
        for value in fieldValues {
            total += value.utf8.count
            guard !truncated else { continue }
            let bytes = Array(value.utf8.prefix(remaining + 1))
            let cut = bytes.count > remaining
            let end = min(bytes.count, remaining)
            remaining -= end
            var index = 0
            links: while true {
                while index < end, bytes[index] == comma || isWhitespace(bytes[index]) { index += 1 }
                guard index < end else { break }
                let start = index
                position += 1
                switch link(in: bytes, from: start, to: end) {
                case .link(let link, let next):
                    // A link that reaches the bound of a cut field may be cut itself: not kept.
                    if cut && next >= end { break links }
                    result.links.append(link)
                    index = next
                case .malformed(let reason):
                    let next = endOfElement(in: bytes, from: start, to: end)
                    if cut && next >= end { break links }
                    result.malformedCount += 1
                    result.note("Link element \(position) skipped: \(reason)")
                    index = next
                }
            }
            if cut { truncated = true }
        }
        if truncated {
            result.truncation = ("the Link headers are \(total) bytes, more than \(maximumInputLength): the links past "
                + "\(maximumInputLength) bytes are not read")
        }
        return result
    }

    /// The outcome of reading one link-value.
    private enum Element {
        /// A link, and the index just after it (at a comma or the end).
        case link(LinkValue, next: Int)
        /// Why the link-value is malformed.
        case malformed(String)
    }

    /// Reads the link-value at `start` (a non-blank byte) up to the comma that ends it or `end`.
    private static func link(in bytes: [UInt8], from start: Int, to end: Int) -> Element {
        var index = start
        guard bytes[index] == UInt8(ascii: "<") else { return .malformed("it does not start with '<'") }
        index += 1
        let targetStart = index
        while index < end, bytes[index] != UInt8(ascii: ">") {
            let byte = bytes[index]
            if byte <= space || byte == delete || byte == quote || byte == UInt8(ascii: "<") {
                return .malformed("its URI holds a space, a control character, '\"' or '<'")
            }
            index += 1
        }
        guard index < end else { return .malformed("its URI has no closing '>'") }
        var link = LinkValue(target: String(decoding: bytes[targetStart..<index], as: UTF8.self))
        index += 1
        while true {
            while index < end, isWhitespace(bytes[index]) { index += 1 }
            guard index < end, bytes[index] != comma else { return .link(link, next: index) }
            guard bytes[index] == semicolon else { return .malformed("';' or ',' expected after a parameter or the URI") }
            index += 1
            while index < end, isWhitespace(bytes[index]) { index += 1 }
            // A trailing ';' (before ',' or the end) is tolerated.
            guard index < end, bytes[index] != comma else { return .link(link, next: index) }
            let nameStart = index
            while index < end, isTokenCharacter(bytes[index]) { index += 1 }
            guard index > nameStart else { return .malformed("a parameter has no name") }
            let name = String(decoding: bytes[nameStart..<index], as: UTF8.self).lowercased()
            while index < end, isWhitespace(bytes[index]) { index += 1 }
            var value = ""
            if index < end, bytes[index] == UInt8(ascii: "=") {
                index += 1
                while index < end, isWhitespace(bytes[index]) { index += 1 }
                if index < end, bytes[index] == quote {
                    index += 1
                    var unquoted: [UInt8] = []
                    while true {
                        guard index < end else { return .malformed("a quoted string is not terminated") }
                        var byte = bytes[index]
                        if byte == quote { index += 1; break }
                        if byte == backslash {
                            index += 1
                            guard index < end else { return .malformed("a quoted string is not terminated") }
                            byte = bytes[index]
                        }
                        // qdtext and quoted-pair allow HTAB, SP, VCHAR and obs-text (RFC 9110 section 5.6.4).
                        guard byte == tab || (byte >= space && byte != delete) else {
                            return .malformed("a quoted string holds a control character")
                        }
                        unquoted.append(byte)
                        index += 1
                    }
                    value = String(decoding: unquoted, as: UTF8.self)
                } else {
                    let valueStart = index
                    while index < end, isTokenCharacter(bytes[index]) { index += 1 }
                    guard index > valueStart else { return .malformed("parameter '\(name)' has no value after '='") }
                    value = String(decoding: bytes[valueStart..<index], as: UTF8.self)
                }
            }
            if link.parameters[name] == nil { link.parameters[name] = value }
        }
    }

    /// The index of the comma that ends the list element starting at `start` (or `end`), skipping commas inside
    /// `<...>` and inside quoted strings (with their `\` escapes): where reading resumes after a malformed link.
    private static func endOfElement(in bytes: [UInt8], from start: Int, to end: Int) -> Int {
        var index = start
        var inBrackets = false
        var inQuotes = false
        while index < end {
            let byte = bytes[index]
            if inQuotes {
                if byte == backslash { index += 1 } else if byte == quote { inQuotes = false }
            } else if inBrackets {
                if byte == UInt8(ascii: ">") { inBrackets = false }
            } else if byte == comma {
                return index
            } else if byte == quote {
                inQuotes = true
            } else if byte == UInt8(ascii: "<") {
                inBrackets = true
            }
            index += 1
        }
        return end
    }

    /// OWS: SP or HTAB (RFC 9110 section 5.6.3).
    private static func isWhitespace(_ byte: UInt8) -> Bool { byte == space || byte == tab }

    /// tchar (RFC 9110 section 5.6.2): `!#$%&'*+-.^_`|~`, digits and letters.
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "A")...UInt8(ascii: "Z"):
            return true
        default:
            return tokenSymbols.contains(byte)
        }
    }

    private static let tokenSymbols: [UInt8] = Array("!#$%&'*+-.^_`|~".utf8)
    private static let comma = UInt8(ascii: ",")
    private static let semicolon = UInt8(ascii: ";")
    private static let quote = UInt8(ascii: "\"")
    private static let backslash = UInt8(ascii: "\\")
    private static let space = UInt8(ascii: " ")
    private static let tab = UInt8(ascii: "\t")
    private static let delete: UInt8 = 0x7F
}
