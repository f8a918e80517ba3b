#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The state of `SessionDescription(parsing:)` while it reads lines: what the session level and the first `m=video`
/// section said so far, with the line numbers that later checks cite.
struct SessionDescriptionParser {
    /// The transports this receiver can use (RFC 3551, RFC 4585, RFC 3711, RFC 5124).
    static let supportedProtocols = ["RTP/AVP", "RTP/AVPF", "RTP/SAVP", "RTP/SAVPF"]
    /// RTP payload types have seven bits (RFC 3550 section 5.1).
    static let maxPayloadType = 127
    /// The H.264 RTP clock rate (RFC 6184 section 8.2.1).
    static let h264ClockRate = "90000"
    /// The packetization modes this package implements (RFC 6184 section 6: single NAL unit and non-interleaved).
    static let supportedPacketizationModes = 0...1
    /// A crypto tag is one to nine digits (RFC 4568 section 9.1: `tag = 1*9DIGIT`).
    static let maxCryptoTagDigits = 9
    /// The key method of SDES key parameters (RFC 4568 section 9.1: `key-method = "inline"`).
    static let inlineKeyMethod = "inline:"

    private var sessionName = "-"
    private var sessionConnection: String?
    private var videoConnection: String?
    private var inSessionLevel = true
    private var inVideo = false
    private var sawVideo = false
    private var mediaLine = 0
    private var port: Int?
    private var proto = ""
    /// The m= line's payload types (a set: one repeated thousands of times is one, and each lookup is O(1)).
    private var payloadTypes: Set<UInt8> = []
    private var h264PT: UInt8?
    private var fmtp: [UInt8: (line: Int, parameters: Substring)] = [:]
    private var rtcpMux = false
    private var rtcpPort: (line: Int, port: Int)?
    private var crypto: SessionDescription.Crypto?
    private var ssrc: UInt32?
    private var feedbackLines: [(payloadType: String, value: String)] = []
    private var rtxPayloadTypes: [UInt8] = []
    private var fidGroup: (media: UInt32, rtx: UInt32)?
    private var fecPayloadTypes: [UInt8] = []
    private var fecGroup: (media: UInt32, fec: UInt32)?
    private var transportWideCCExtensionID: UInt8?
    private var absoluteCaptureTimeExtensionID: UInt8?
    private var playoutDelayExtensionID: UInt8?
    private var dependencyDescriptorExtensionID: UInt8?
    /// Every `a=extmap` ID seen and its URI, to refuse one ID given to two extensions (RFC 8285 section 5).
    private var extensionURIs: [UInt8: Substring] = [:]
    /// The most `a=extmap` lines remembered (a browser offers about a dozen).
    static let maximumExtensions = 64
    private var cname: String?
    private var frameRate: Double?

    private func fail(_ number: Int, _ reason: String) -> SessionDescriptionError {
        .malformedLine(lineNumber: number, reason: reason)
    }

    /// Reads one line (without its line end; control characters already refused).
    mutating func read(line: String, number: Int) throws(SessionDescriptionError) {
        let bytes = line.utf8
        guard bytes.count >= 2, let type = bytes.first, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(type),
              bytes[bytes.index(after: bytes.startIndex)] == UInt8(ascii: "=")
        else { throw fail(number, "expected <type>=<value>") }
        let value = line.dropFirst(2)
        switch type {
        case UInt8(ascii: "v"):
            guard value == "0" else { throw fail(number, "unsupported SDP version v=\(value) (only v=0)") }
        case UInt8(ascii: "s"):
            if inSessionLevel { sessionName = String(value) }
        case UInt8(ascii: "c"):
            guard inSessionLevel || inVideo else { return }
            let address = try Self.connectionAddress(value, line: number)
            if inSessionLevel { sessionConnection = address } else { videoConnection = address }
        case UInt8(ascii: "m"):
            inSessionLevel = false
            let parts = value.split(separator: " ")
            inVideo = parts.first == "video" && !sawVideo
            if inVideo {
                sawVideo = true
                mediaLine = number
                try readVideoMedia(parts, line: number)
            }
        case UInt8(ascii: "a") where inVideo:
            try readAttribute(value, line: number)
        default:
            break
        }
    }

    /// `c=IN IP4|IP6 <address>[/ttl[/count]]` (RFC 8866 section 5.7).
    private static func connectionAddress(_ value: Substring, line: Int) throws(SessionDescriptionError) -> String {
        let parts = value.split(separator: " ")
        let form = "c= needs 'IN IP4|IP6 address'"
        guard parts.count == 3, parts[0] == "IN", parts[1] == "IP4" || parts[1] == "IP6",
              let address = parts[2].split(separator: "/").first
        else { throw .malformedLine(lineNumber: line, reason: form) }
        let allowed = address.utf8.allSatisfy { byte in
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
                || [UInt8(ascii: "."), UInt8(ascii: ":"), UInt8(ascii: "-"), UInt8(ascii: "%"), UInt8(ascii: "_")].contains(byte)
        }
        guard allowed else { throw .malformedLine(lineNumber: line, reason: "c= address \(address) is not an IP address or host name") }
        return String(address)
    }

    /// `m=video <port>[/<count>] <proto> <fmt> ...` (RFC 8866 section 5.14).
    private mutating func readVideoMedia(_ parts: [Substring], line: Int) throws(SessionDescriptionError) {
        guard parts.count >= 4 else { throw fail(line, "m=video needs 'port proto fmt...'") }
        let portParts = parts[1].split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let p = Self.decimal(portParts[0], maxDigits: 5), (1...65535).contains(p) else {
            throw fail(line, "m=video port \(portParts[0]) is not 1...65535")
        }
        if portParts.count == 2 {
            guard let count = Self.decimal(portParts[1], maxDigits: 5), count >= 1 else {
                throw fail(line, "m=video port count \(portParts[1]) is not a positive number")
            }
        }
        guard Self.supportedProtocols.contains(String(parts[2])) else {
            throw fail(line, "m=video protocol \(parts[2]) is not one of \(Self.supportedProtocols.joined(separator: ", "))")
        }
        var types: Set<UInt8> = []
        for format in parts.dropFirst(3) {
            guard let pt = Self.payloadType(format) else {
                throw fail(line, "m=video payload type \(format) is not 0...\(Self.maxPayloadType)")
            }
            types.insert(pt)
        }
        port = p
        proto = String(parts[2])
        payloadTypes = types
    }

    /// One `a=` line of the video section.
    private mutating func readAttribute(_ value: Substring, line: Int) throws(SessionDescriptionError) {
        let name: Substring, attribute: Substring
        if let colon = value.firstIndex(of: ":") {
            name = value[..<colon]
            attribute = value[value.index(after: colon)...]
        } else {
            name = value
            attribute = ""
        }
        switch name {
        case "rtpmap":
            // a=rtpmap:<payload type> <encoding name>/<clock rate>[/<encoding parameters>] (RFC 8866 section 6.6)
            let parts = attribute.split(separator: " ", maxSplits: 1)
            let encoding = parts.count == 2 ? parts[1].split(separator: "/", omittingEmptySubsequences: false) : []
            guard parts.count == 2, let pt = Self.payloadType(parts[0]), (2...3).contains(encoding.count),
                  !encoding[0].isEmpty, !encoding[1].isEmpty
            else { throw fail(line, "a=rtpmap needs '<payload type> <encoding>/<clock rate>'") }
            if encoding[0].lowercased() == "rtx", payloadTypes.contains(pt), !rtxPayloadTypes.contains(pt) {
                rtxPayloadTypes.append(pt)  // at most 128: each RTX type's parameters are read once in finish()
            }
            if encoding[0].lowercased() == SessionDescription.FEC.encodingName, payloadTypes.contains(pt),
               !fecPayloadTypes.contains(pt), fecPayloadTypes.count < 4
            {
                fecPayloadTypes.append(pt)
            }
            guard encoding[0].uppercased() == "H264" else { return }
            guard encoding[1] == Self.h264ClockRate, encoding.count == 2 else {
                throw fail(line, "a=rtpmap H264 must be H264/\(Self.h264ClockRate) (RFC 6184 section 8.2.1)")
            }
            if h264PT == nil, payloadTypes.contains(pt) { h264PT = pt }
        case "fmtp":
            // a=fmtp:<payload type> <format specific parameters> (RFC 8866 section 6.15)
            let parts = attribute.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, let pt = Self.payloadType(parts[0]) else {
                throw fail(line, "a=fmtp needs '<payload type> <parameters>'")
            }
            if fmtp[pt] == nil { fmtp[pt] = (line, parts[1]) }
        case "rtcp-mux":
            rtcpMux = true
        case "rtcp":
            // a=rtcp:<port> [<nettype> <addrtype> <address>] (RFC 3605 section 2.1)
            let portText = attribute.split(separator: " ").first ?? ""
            guard let p = Self.decimal(portText, maxDigits: 5), (1...65535).contains(p) else {
                throw fail(line, "a=rtcp port \(portText) is not 1...65535")
            }
            if rtcpPort == nil { rtcpPort = (line, p) }
        case "crypto":
            let parsed = try Self.crypto(attribute, line: line)
            if crypto == nil { crypto = parsed }
        case "ssrc":
            // a=ssrc:<ssrc-id> <attribute>[:<value>] (RFC 5576 section 4.1)
            let parts = attribute.split(separator: " ", maxSplits: 1)
            guard let first = parts.first, let s = Self.decimal(first, maxDigits: 10), let id = UInt32(exactly: s) else {
                throw fail(line, "a=ssrc needs a 32-bit SSRC (0...4294967295)")
            }
            if ssrc == nil { ssrc = id }
            if id == ssrc, cname == nil, parts.count == 2, parts[1].hasPrefix("cname:") {
                let text = parts[1].dropFirst(6)
                guard !text.isEmpty, text.utf8.count <= SessionDescription.maxCNAMELength else {
                    throw fail(line, "a=ssrc cname must be 1...\(SessionDescription.maxCNAMELength) bytes (RFC 3550 section 6.5), not \(text.utf8.count)")
                }
                cname = String(text)
            }
        case "rtcp-fb":
            // a=rtcp-fb:<payload type or *> <feedback> (RFC 4585 section 4.2)
            let parts = attribute.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, parts[0] == "*" || Self.payloadType(parts[0]) != nil,
                  parts[1].utf8.count <= 64, parts[1].allSatisfy({ $0.isASCII && !$0.isNewline })
            else { throw fail(line, "a=rtcp-fb needs '<payload type> <feedback>'") }
            if feedbackLines.count < 32 { feedbackLines.append((String(parts[0]), String(parts[1]))) }
        case "extmap":
            // a=extmap:<id>[/<direction>] <uri> [<attributes>] (RFC 8285 section 5); the transport-wide sequence
            // number, the absolute capture time, the playout delay and the dependency descriptor are read; no ID may
            // name two URIs.
            let parts = attribute.split(separator: " ", omittingEmptySubsequences: false)
            if parts.count >= 2 {
                let idText = parts[0].split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)[0]
                let uri = parts[1]
                let known = [SessionDescription.transportWideCCURI, SessionDescription.absoluteCaptureTimeURI,
                             SessionDescription.playoutDelayURI,
                             SessionDescription.dependencyDescriptorURI].contains { uri == $0 }
                guard let id = Self.decimal(idText, maxDigits: 3).flatMap(UInt8.init(exactly:)), (1...255).contains(id)
                else {
                    if known { throw fail(line, "a=extmap ID must be 1-255 (RFC 8285 section 5), got '\(parts[0])'") }
                    break
                }
                if let other = extensionURIs[id], other != uri {
                    throw fail(line, "a=extmap ID \(id) names two extensions (RFC 8285 section 5): \(other.prefix(80)) and \(uri.prefix(80))")
                }
                if extensionURIs.count < Self.maximumExtensions { extensionURIs[id] = uri }
                switch uri {
                case SessionDescription.transportWideCCURI:
                    if transportWideCCExtensionID == nil { transportWideCCExtensionID = id }
                case SessionDescription.absoluteCaptureTimeURI:
                    if absoluteCaptureTimeExtensionID == nil { absoluteCaptureTimeExtensionID = id }
                case SessionDescription.playoutDelayURI:
                    if playoutDelayExtensionID == nil { playoutDelayExtensionID = id }
                case SessionDescription.dependencyDescriptorURI:
                    if dependencyDescriptorExtensionID == nil { dependencyDescriptorExtensionID = id }
                default:
                    break
                }
            }
        case "ssrc-group":
            // a=ssrc-group:FID <media ssrc> <rtx ssrc> (RFC 5576 section 4.2, RFC 4588 section 8.1)
            let parts = attribute.split(separator: " ")
            if parts.count == 3, parts[0] == "FID" {
                guard let media = Self.decimal(parts[1], maxDigits: 10).flatMap({ UInt32(exactly: $0) }),
                      let rtx = Self.decimal(parts[2], maxDigits: 10).flatMap({ UInt32(exactly: $0) })
                else { throw fail(line, "a=ssrc-group:FID needs two 32-bit SSRCs") }
                if fidGroup == nil { fidGroup = (media, rtx) }
            } else if parts.count == 3, parts[0] == "FEC-FR" {
                // a=ssrc-group:FEC-FR <media ssrc> <fec ssrc> (RFC 5956 section 4.3)
                guard let media = Self.decimal(parts[1], maxDigits: 10).flatMap({ UInt32(exactly: $0) }),
                      let fec = Self.decimal(parts[2], maxDigits: 10).flatMap({ UInt32(exactly: $0) })
                else { throw fail(line, "a=ssrc-group:FEC-FR needs two 32-bit SSRCs") }
                if fecGroup == nil { fecGroup = (media, fec) }
            }
        case "framerate":
            guard let rate = Double(attribute), rate.isFinite, rate > 0, rate <= SessionDescription.maxFrameRate else {
                throw fail(line, "a=framerate \(attribute) is not a number above 0 and at most \(Int(SessionDescription.maxFrameRate))")
            }
            frameRate = rate
        default:
            break
        }
    }

    /// `a=crypto:<tag> <crypto-suite> <key-params> [<session-params>]` (RFC 4568 section 9.1). The key itself is
    /// checked by the SRTP module, which knows each suite's key length; here only its form.
    private static func crypto(_ attribute: Substring, line: Int) throws(SessionDescriptionError) -> SessionDescription.Crypto {
        let parts = attribute.split(separator: " ")
        guard parts.count >= 3 else {
            throw .malformedLine(lineNumber: line, reason: "a=crypto needs 'tag suite key-params'")
        }
        guard parts[0].count <= maxCryptoTagDigits, let tag = decimal(parts[0], maxDigits: maxCryptoTagDigits) else {
            throw .malformedLine(lineNumber: line, reason: "a=crypto tag \(parts[0]) is not 1 to \(maxCryptoTagDigits) digits")
        }
        let suiteIsName = parts[1].utf8.allSatisfy { byte in
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
        }
        guard suiteIsName else {
            throw .malformedLine(lineNumber: line, reason: "a=crypto suite \(parts[1]) is not a suite name (letters, digits, _)")
        }
        guard parts[2].hasPrefix(inlineKeyMethod), parts[2].count > inlineKeyMethod.count else {
            throw .malformedLine(lineNumber: line, reason: "a=crypto key parameters must be 'inline:<key>' (RFC 4568 section 9.1)")
        }
        return SessionDescription.Crypto(tag: tag, suite: String(parts[1]), keyParameters: String(parts[2]))
    }

    /// The description once every line was read.
    func finish() throws(SessionDescriptionError) -> SessionDescription {
        guard sawVideo, let port else { throw .missingLine("m=video") }
        guard let connection = videoConnection ?? sessionConnection else { throw .missingLine("c=") }
        guard let pt = h264PT else { throw .noH264PayloadType }
        var mode = 0
        var profileLevelID = "42e01f"
        var sets: [[UInt8]] = []
        if let entry = fmtp[pt] {
            let line = entry.line
            for parameter in entry.parameters.split(separator: ";") {
                let kv = parameter.split(separator: "=", maxSplits: 1).map { $0.filter { $0 != " " } }
                guard kv.count == 2 else { continue }
                switch kv[0].lowercased() {
                case "packetization-mode":
                    guard let m = Self.decimal(Substring(kv[1]), maxDigits: 3), Self.supportedPacketizationModes.contains(m) else {
                        throw fail(line, "packetization-mode \(kv[1]) is not supported (0 or 1)")
                    }
                    mode = m
                case "profile-level-id":
                    guard kv[1].utf8.count == 6, kv[1].allSatisfy(\.isHexDigit) else {
                        throw fail(line, "profile-level-id \(kv[1]) is not six hex digits")
                    }
                    profileLevelID = kv[1].lowercased()
                case "sprop-parameter-sets":
                    sets = []
                    for entry in kv[1].split(separator: ",", omittingEmptySubsequences: false) {
                        guard let data = Data(base64Encoded: String(entry)), !data.isEmpty else {
                            throw fail(line, "sprop-parameter-sets entry '\(entry)' is not base64 of a NAL unit")
                        }
                        sets.append([UInt8](data))
                    }
                default:
                    break
                }
            }
        }
        let secure = proto == "RTP/SAVP" || proto == "RTP/SAVPF"
        if secure {
            guard crypto != nil else { throw .missingLine("a=crypto for \(proto)") }
        }
        if !rtcpMux {
            guard port < 65535 else {
                throw fail(mediaLine, "m=video port 65535 leaves no port for RTCP (RTP port + 1); add a=rtcp-mux")
            }
            if let rtcp = rtcpPort, rtcp.port != port + 1 {
                throw fail(rtcp.line, "a=rtcp port \(rtcp.port) is not the RTP port + 1 (\(port + 1)), the only layout supported")
            }
        }
        var description = SessionDescription(
            connectionAddress: connection, port: port, rtcpMux: rtcpMux, payloadType: pt,
            profileLevelID: profileLevelID, packetizationMode: mode, parameterSets: sets,
            crypto: secure ? crypto : nil, ssrc: fidGroup?.media ?? ssrc, cname: cname, frameRate: frameRate,
            sessionName: sessionName
        )
        description.transportWideCCExtensionID = transportWideCCExtensionID
        description.absoluteCaptureTimeExtensionID = absoluteCaptureTimeExtensionID
        description.playoutDelayExtensionID = playoutDelayExtensionID
        description.dependencyDescriptorExtensionID = dependencyDescriptorExtensionID
        description.feedback = feedbackLines.filter { $0.payloadType == "*" || $0.payloadType == String(pt) }.map(\.value)
        // The RTX payload type whose apt= names the H.264 one.
        for rtxPT in rtxPayloadTypes {
            guard let entry = fmtp[rtxPT] else { continue }
            var apt: Int?
            var rtxTime: Int?
            for parameter in entry.parameters.split(separator: ";") {
                let kv = parameter.split(separator: "=", maxSplits: 1).map { $0.filter { $0 != " " } }
                guard kv.count == 2 else { continue }
                switch kv[0].lowercased() {
                case "apt": apt = Self.decimal(Substring(kv[1]), maxDigits: 3)
                case "rtx-time": rtxTime = Self.decimal(Substring(kv[1]), maxDigits: 6)
                default: break
                }
            }
            if apt == Int(pt) {
                description.rtx = SessionDescription.RTX(payloadType: rtxPT, ssrc: fidGroup?.rtx, rtxTime: rtxTime)
                break
            }
        }
        // The first flexfec-03 type on the m= line (libwebrtc offers one).
        if let fecPT = fecPayloadTypes.first, fecPT != pt, fecPT != description.rtx?.payloadType {
            description.fec = SessionDescription.FEC(payloadType: fecPT, ssrc: fecGroup?.fec)
        }
        return description
    }

    /// A non-negative decimal number of at most `maxDigits` digits (no sign, no spaces), or nil.
    private static func decimal(_ text: Substring, maxDigits: Int) -> Int? {
        guard !text.isEmpty, text.utf8.count <= maxDigits,
              text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return nil }
        return Int(text)
    }

    /// An RTP payload type, 0...127.
    private static func payloadType(_ text: Substring) -> UInt8? {
        guard let value = decimal(text, maxDigits: 3), value <= maxPayloadType else { return nil }
        return UInt8(value)
    }
}
