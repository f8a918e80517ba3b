/// A JSEP session description (RFC 8829) as lines: the session part and its media sections, with parsing and
/// writing. Negotiation for our one H.264 video stream lives in `VideoAnswerer` and `VideoOfferer`.
public struct JSEPSessionDescription: Hashable, Sendable {
    /// The `o=` value, e.g. `- 4215775240449105457 2 IN IP4 127.0.0.1`.
    public var origin: String
    /// The `s=` value, `-` in JSEP.
    public var sessionName = "-"
    /// Session-level `a=` lines (group, ice-lite, fingerprint, ... when given there).
    public var attributes: [SDPAttribute] = []
    /// The `m=` sections in order.
    public var media: [JSEPMediaSection] = []

    /// The largest description accepted: 256 KiB (a Chromium offer is 5-10 KiB); bounds the work one request causes.
    public static let maxLength = 256 * 1024

    /// Creates a description.
    /// - Parameters:
    ///   - origin: The `o=` value.
    ///   - attributes: Session-level attributes.
    ///   - media: The media sections.
    public init(origin: String, attributes: [SDPAttribute] = [], media: [JSEPMediaSection] = []) {
        self.origin = origin
        self.attributes = attributes
        self.media = media
    }

    /// The value of the first session-level attribute with a name.
    public func attribute(_ name: String) -> String? {
        attributes.first { $0.name == name }.map { $0.value ?? "" }
    }

    /// The mids of `a=group:BUNDLE`, empty when there is none.
    public var bundleGroup: [String] {
        guard let group = attributes.first(where: { $0.name == "group" && ($0.value ?? "").hasPrefix("BUNDLE") })
        else { return [] }
        return (group.value ?? "").split(separator: " ").dropFirst().map(String.init)
    }

    /// Whether the description declares `a=ice-lite` (session level).
    public var isICELite: Bool { attributes.contains { $0.name == "ice-lite" } }

    /// An attribute of a media section, falling back to the session level (where Firefox puts fingerprint and
    /// ICE credentials).
    /// - Parameters:
    ///   - name: The attribute name.
    ///   - section: The media section.
    public func attribute(_ name: String, in section: JSEPMediaSection) -> String? {
        section.attribute(name) ?? attribute(name)
    }

    /// Parses a description.
    ///
    /// Accepts CRLF or LF line ends. Checks `v=0` first, `o=` present, each line `<letter>=<value>`, and each `m=`
    /// line's port and fields; other line types (i=, t=, k=, ...) are skipped.
    /// - Parameters:
    ///   - text: The SDP.
    /// - Throws: `JSEPError.malformedLine` or `.missing`.
    public init(parsing text: String) throws(JSEPError) {
        guard text.utf8.count <= Self.maxLength else {
            throw .malformedLine(number: 0, line: "", reason: "description of \(text.utf8.count) bytes exceeds \(Self.maxLength)")
        }
        var origin: String?
        var sessionName = "-"
        var sessionAttributes: [SDPAttribute] = []
        var sections: [JSEPMediaSection] = []
        var sawVersion = false
        for (index, line) in Self.lines(of: text).enumerated() {
            let number = index + 1
            if line.isEmpty { continue }
            let bytes = Array(line.utf8.prefix(2))
            guard bytes.count == 2, bytes[1] == UInt8(ascii: "="),
                  (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(bytes[0])
            else { throw .malformedLine(number: number, line: PeerText.excerpt(line), reason: "not <letter>=<value>") }
            let type = Character(Unicode.Scalar(bytes[0]))
            let value = line.dropFirst(2)
            if !sawVersion {
                guard type == "v", value == "0" else {
                    throw .malformedLine(number: number, line: PeerText.excerpt(line), reason: "the first line must be v=0")
                }
                sawVersion = true
                continue
            }
            switch type {
            case "o": origin = String(value)
            case "s": sessionName = String(value)
            case "m": sections.append(try Self.parseMediaLine(value, number: number))
            case "c":
                if sections.isEmpty { continue }
                sections[sections.count - 1].connection = String(value)
            case "b":
                if sections.isEmpty { continue }
                sections[sections.count - 1].bandwidths.append(String(value))
            case "a":
                let attribute = SDPAttribute(parsing: value)
                if sections.isEmpty {
                    sessionAttributes.append(attribute)
                } else {
                    sections[sections.count - 1].attributes.append(attribute)
                }
            default: continue
            }
        }
        guard sawVersion else { throw .missing("v=0") }
        guard let origin else { throw .missing("o=") }
        self.init(origin: origin, attributes: sessionAttributes, media: sections)
        self.sessionName = sessionName
    }

    /// The lines of `text`, split at CRLF, LF or CR, walking its UTF-8 bytes once (splitting by `Character` costs
    /// grapheme breaking on every byte; line ends are ASCII, so byte positions are valid string indices).
    static func lines(of text: String) -> [Substring] {
        var lines: [Substring] = []
        let bytes = text.utf8
        var start = bytes.startIndex
        var index = start
        while index < bytes.endIndex {
            let byte = bytes[index]
            guard byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") else {
                index = bytes.index(after: index)
                continue
            }
            lines.append(text[start..<index])
            index = bytes.index(after: index)
            if byte == UInt8(ascii: "\r"), index < bytes.endIndex, bytes[index] == UInt8(ascii: "\n") {
                index = bytes.index(after: index)
            }
            start = index
        }
        lines.append(text[start..<bytes.endIndex])
        return lines
    }

    /// Parses `m=<media> <port>[/<count>] <proto> <fmt> ...`.
    static func parseMediaLine(_ value: Substring, number: Int) throws(JSEPError) -> JSEPMediaSection {
        let fields = value.utf8.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: true).map { Substring($0) }
        guard fields.count >= 4 else {
            throw .malformedLine(number: number, line: PeerText.excerpt("m=\(value)"), reason: "needs media, port, proto and a format")
        }
        guard let port = UInt16(fields[1].split(separator: "/", omittingEmptySubsequences: false)[0]) else {
            throw .malformedLine(number: number, line: PeerText.excerpt("m=\(value)"), reason: "port '\(fields[1])'")
        }
        return JSEPMediaSection(kind: String(fields[0]), port: port, proto: String(fields[2]),
                                formats: fields[3...].map(String.init))
    }

    /// The description as SDP text with CRLF line ends.
    public var sdp: String {
        var lines = ["v=0", "o=\(origin)", "s=\(sessionName)", "t=0 0"]
        lines += attributes.map { "a=\($0)" }
        for section in media {
            lines.append("m=\(section.kind) \(section.port) \(section.proto) \(section.formats.joined(separator: " "))")
            if let connection = section.connection { lines.append("c=\(connection)") }
            lines += section.bandwidths.map { "b=\($0)" }
            lines += section.attributes.map { "a=\($0)" }
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }
}
