#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Why an SDP could not be used for an H.264 stream.
public enum SessionDescriptionError: Error, Equatable, CustomStringConvertible {
    /// A required line is missing.
    case missingLine(String)
    /// A line does not have the expected form.
    case malformedLine(lineNumber: Int, reason: String)
    /// The `m=video` section has no H.264 payload type.
    case noH264PayloadType

    public var description: String {
        switch self {
        case .missingLine(let what): return "SDP: missing \(what)"
        case .malformedLine(let n, let reason): return "SDP line \(n): \(reason)"
        case .noH264PayloadType: return "SDP: no a=rtpmap with H264/90000 in the video section"
        }
    }
}

extension SessionDescription {
    /// Parses the SDP of one H.264 video stream (the first `m=video` section).
    ///
    /// Accepts LF or CRLF line ends; ignores lines it does not need. Key material is kept as given.
    /// - Parameter text: the SDP.
    /// - Throws: `SessionDescriptionError` naming the line at fault.
    public init(parsing text: String) throws {
        var connection: String?
        var port: Int?
        var proto = ""
        var payloadTypes: [UInt8] = []
        var h264PT: UInt8?
        var fmtp: [UInt8: String] = [:]
        var rtcpMux = false
        var crypto: Crypto?
        var ssrc: UInt32?
        var cname: String?
        var frameRate: Double?
        var sessionName = "-"
        var inVideo = false
        var sawVideo = false

        // "\r\n" is one Character in Swift: split on both forms.
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
        for (index, rawLine) in lines.enumerated() {
            let n = index + 1
            var line = Substring(rawLine)
            if line.hasSuffix("\r") { line = line.dropLast() }
            if line.isEmpty { continue }
            guard line.count >= 2, line.dropFirst().first == "=" else {
                throw SessionDescriptionError.malformedLine(lineNumber: n, reason: "expected <type>=<value>")
            }
            let type = line.first!
            let value = line.dropFirst(2)
            switch type {
            case "s":
                sessionName = String(value)
            case "c":
                if !sawVideo || inVideo {
                    let parts = value.split(separator: " ")
                    guard parts.count == 3 else {
                        throw SessionDescriptionError.malformedLine(lineNumber: n, reason: "c= needs 'IN IP4|IP6 address'")
                    }
                    connection = String(parts[2].split(separator: "/").first ?? parts[2])
                }
            case "m":
                let parts = value.split(separator: " ")
                inVideo = parts.first == "video" && !sawVideo
                if inVideo {
                    sawVideo = true
                    guard parts.count >= 4, let p = Int(parts[1].split(separator: "/")[0]), (0...65535).contains(p) else {
                        throw SessionDescriptionError.malformedLine(lineNumber: n, reason: "m=video needs 'port proto fmt...'")
                    }
                    port = p
                    proto = String(parts[2])
                    payloadTypes = parts.dropFirst(3).compactMap { UInt8($0) }
                }
            case "a" where inVideo:
                let (name, attr) = Self.splitAttribute(value)
                switch name {
                case "rtpmap":
                    let parts = attr.split(separator: " ", maxSplits: 1)
                    if parts.count == 2, let pt = UInt8(parts[0]), parts[1].uppercased().hasPrefix("H264/90000"),
                       h264PT == nil {
                        h264PT = pt
                    }
                case "fmtp":
                    let parts = attr.split(separator: " ", maxSplits: 1)
                    if parts.count == 2, let pt = UInt8(parts[0]) { fmtp[pt] = String(parts[1]) }
                case "rtcp-mux":
                    rtcpMux = true
                case "crypto":
                    let parts = attr.split(separator: " ")
                    guard parts.count >= 3, let tag = Int(parts[0]) else {
                        throw SessionDescriptionError.malformedLine(lineNumber: n, reason: "a=crypto needs 'tag suite key-params'")
                    }
                    if crypto == nil {
                        crypto = Crypto(tag: tag, suite: String(parts[1]), keyParameters: String(parts[2]))
                    }
                case "ssrc":
                    let parts = attr.split(separator: " ", maxSplits: 1)
                    if let s = UInt32(parts.first ?? "") {
                        ssrc = s
                        if parts.count == 2, parts[1].hasPrefix("cname:") { cname = String(parts[1].dropFirst(6)) }
                    }
                case "framerate":
                    frameRate = Double(attr)
                default:
                    break
                }
            default:
                break
            }
        }
        guard sawVideo, let port else { throw SessionDescriptionError.missingLine("m=video") }
        guard let connection else { throw SessionDescriptionError.missingLine("c=") }
        guard let pt = h264PT, payloadTypes.contains(pt) else { throw SessionDescriptionError.noH264PayloadType }
        var mode = 0
        var profileLevelID = "42e01f"
        var sets: [[UInt8]] = []
        for parameter in (fmtp[pt] ?? "").split(separator: ";") {
            let kv = parameter.split(separator: "=", maxSplits: 1).map { String($0.filter { $0 != " " }) }
            guard kv.count == 2 else { continue }
            switch kv[0] {
            case "packetization-mode": mode = Int(kv[1]) ?? 0
            case "profile-level-id": profileLevelID = kv[1].lowercased()
            case "sprop-parameter-sets":
                sets = kv[1].split(separator: ",").compactMap { Data(base64Encoded: String($0)).map { [UInt8]($0) } }
            default: break
            }
        }
        if proto.hasSuffix("SAVP") || proto.hasSuffix("SAVPF") {
            guard crypto != nil else { throw SessionDescriptionError.missingLine("a=crypto for \(proto)") }
        }
        self.init(
            connectionAddress: connection, port: port, rtcpMux: rtcpMux, payloadType: pt,
            profileLevelID: profileLevelID, packetizationMode: mode, parameterSets: sets,
            crypto: proto.contains("SAVP") ? crypto : nil, ssrc: ssrc, cname: cname, frameRate: frameRate,
            sessionName: sessionName
        )
    }

    private static func splitAttribute(_ value: Substring) -> (Substring, Substring) {
        guard let colon = value.firstIndex(of: ":") else { return (value, "") }
        return (value[..<colon], value[value.index(after: colon)...])
    }
}
