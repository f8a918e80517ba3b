extension SessionDescription {
    /// The longest SDP accepted, in bytes: far above a one-stream description (about 500 bytes; a browser's offer
    /// with every codec is about 10 KiB), and small enough that a file or pipe of junk is refused at once.
    public static let maxSize = 64 * 1024
    /// The longest line accepted, in bytes (an `a=fmtp` with large parameter sets is a few hundred).
    public static let maxLineLength = 4096
    /// The highest `a=framerate` accepted (RFC 8866 section 6.8 gives no bound; this keeps the value printable).
    public static let maxFrameRate: Double = 1000
    /// The longest CNAME, in bytes: an RTCP SDES item has a one-octet length (RFC 3550 section 6.5).
    public static let maxCNAMELength = 255

    /// Parses the SDP of one H.264 video stream (the first `m=video` section).
    ///
    /// Accepts LF or CRLF line ends; ignores lines it does not need, but every line it uses is checked: the
    /// `m=video` port (1...65535) and payload types (0...127), the transport (`RTP/AVP`, `RTP/AVPF`, `RTP/SAVP`,
    /// `RTP/SAVPF`), `c=`, `a=rtpmap` (H264 at 90000 Hz), the H.264 `a=fmtp` parameters (packetization mode 0 or 1,
    /// six-hex-digit `profile-level-id`, base64 `sprop-parameter-sets`), `a=crypto` (RFC 4568 section 9.1 form),
    /// `a=ssrc` (32-bit, CNAME at most 255 bytes), `a=rtcp` and `a=framerate`. Control characters, lines over
    /// ``maxLineLength`` and descriptions over ``maxSize`` are refused. Key material is kept as given.
    /// - Parameter text: the SDP.
    /// - Throws: `SessionDescriptionError` naming the line at fault and what is wrong with it.
    public init(parsing text: String) throws(SessionDescriptionError) {
        let size = text.utf8.count
        guard size <= Self.maxSize else { throw .tooLarge(bytes: size, limit: Self.maxSize) }
        var parser = SessionDescriptionParser()
        var lineNumber = 0
        for rawLine in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            var line = rawLine
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            guard line.count <= Self.maxLineLength else {
                throw .lineTooLong(lineNumber: lineNumber, bytes: line.count, limit: Self.maxLineLength)
            }
            if line.isEmpty { continue }
            if let control = line.first(where: { ($0 < 0x20 && $0 != UInt8(ascii: "\t")) || $0 == 0x7F }) {
                throw .malformedLine(lineNumber: lineNumber, reason: "control character 0x\(String(control, radix: 16)) in the line")
            }
            try parser.read(line: String(decoding: line, as: UTF8.self), number: lineNumber)
        }
        self = try parser.finish()
    }
}
