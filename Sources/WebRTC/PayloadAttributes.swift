/// The per-payload-type attributes of one media section (`a=rtpmap`, `a=fmtp`, `a=rtcp-fb`), gathered in one pass over
/// its lines so that reading every offered format costs time linear in the section, whatever its shape.
///
/// An offer is network input: a payload type may repeat on the `m=` line, an `a=fmtp` line may carry thousands of
/// parameters, and `a=rtcp-fb:*` may repeat thousands of times. Looking each payload type's lines up again (payload
/// types x lines) let a 64 KiB offer take minutes. Here every line is read once, and what is kept is bounded: the
/// parameters we use, and at most `maximumFeedbackValues` distinct feedback values of at most
/// `maximumFeedbackLength` bytes for each payload type.
struct PayloadAttributes {
    /// An `a=rtpmap` value: encoding name, clock rate and channels.
    struct RTPMap {
        var name: Substring
        var clockRate: Int
    }

    /// The `a=fmtp` parameters a format needs (names lower-cased); others are skipped.
    static let keptParameters: Set<Substring> = ["profile-level-id", "packetization-mode", "level-asymmetry-allowed", "apt"]
    /// The lengths of `keptParameters`, for a first cheap test.
    static let keptParameterLengths = Set(keptParameters.map(\.utf8.count))
    /// The most distinct `a=rtcp-fb` values kept for one payload type (an offer from Chromium has 5).
    static let maximumFeedbackValues = 32
    /// The longest `a=rtcp-fb` value kept (`goog-remb`, `transport-cc`, `nack pli`, `ccm fir` are all short).
    static let maximumFeedbackLength = 64
    /// RTP payload types are 7 bits (RFC 3550 section 5.1).
    static let payloadTypes = 0..<128

    /// `a=rtpmap` by payload type; the first line for a type wins.
    private(set) var rtpMaps: [Int: RTPMap] = [:]
    /// Kept `a=fmtp` parameters by payload type; a later line or parameter overrides an earlier one.
    private(set) var parameters: [Int: [Substring: Substring]] = [:]
    /// `a=rtcp-fb` values by payload type, distinct, in order.
    private var feedbackByType: [Int: [String]] = [:]
    /// `a=rtcp-fb:*` values, distinct, in order (RFC 4585 section 4.2).
    private var wildcardFeedback: [String] = []

    /// Reads a section's lines once.
    init(_ section: JSEPMediaSection) {
        for attribute in section.attributes {
            guard let value = attribute.value else { continue }
            switch attribute.name {
            case "rtpmap": readRTPMap(value[...])
            case "fmtp": readFormatParameters(value[...])
            case "rtcp-fb": readFeedback(value[...])
            default: continue
            }
        }
    }

    /// The feedback values for a payload type: its own, then the wildcard ones it lacks, bounded as above.
    func feedback(_ payloadType: Int) -> [String] {
        var values = feedbackByType[payloadType] ?? []
        for value in wildcardFeedback where values.count < Self.maximumFeedbackValues && !values.contains(value) {
            values.append(value)
        }
        return values
    }

    /// A payload type from `text`, when it is a number from 0 to 127.
    static func payloadType(_ text: Substring) -> Int? {
        guard text.utf8.count <= 3, let value = Int(text), payloadTypes.contains(value) else { return nil }
        return value
    }

    private mutating func readRTPMap(_ value: Substring) {
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, let payloadType = Self.payloadType(parts[0]), rtpMaps[payloadType] == nil else { return }
        let encoding = parts[1].split(separator: "/", maxSplits: 2)
        guard encoding.count >= 2, encoding[1].utf8.count <= 9, let clockRate = Int(encoding[1]) else { return }
        rtpMaps[payloadType] = RTPMap(name: encoding[0], clockRate: clockRate)
    }

    /// `<payload type> <name>=<value>;...`: walked once over a copy of its UTF-8 bytes; a parameter is looked at
    /// only when its name has the length of one we keep.
    private mutating func readFormatParameters(_ value: Substring) {
        let bytes = Array(value.utf8)
        guard let space = bytes.firstIndex(of: UInt8(ascii: " ")),
              let payloadType = Self.payloadType(Substring(decoding: bytes[..<space], as: UTF8.self))
        else { return }
        var kept = parameters[payloadType] ?? [:]
        var start = space + 1
        while start < bytes.count {
            var end = start
            while end < bytes.count, bytes[end] != UInt8(ascii: ";") { end += 1 }
            defer { start = end + 1 }
            var equals = start
            while equals < end, bytes[equals] != UInt8(ascii: "=") { equals += 1 }
            var keyStart = start, keyEnd = equals
            while keyStart < keyEnd, bytes[keyStart] == UInt8(ascii: " ") || bytes[keyStart] == UInt8(ascii: "\t") { keyStart += 1 }
            while keyEnd > keyStart, bytes[keyEnd - 1] == UInt8(ascii: " ") || bytes[keyEnd - 1] == UInt8(ascii: "\t") { keyEnd -= 1 }
            guard Self.keptParameterLengths.contains(keyEnd - keyStart) else { continue }
            let key = Substring(decoding: bytes[keyStart..<keyEnd], as: UTF8.self)
            guard let name = Self.keptParameters.first(where: { $0.caseInsensitiveEquals(key) }) else { continue }
            kept[name] = equals < end ? Substring(decoding: bytes[(equals + 1)..<end], as: UTF8.self).trimmingSpaces : ""
        }
        if !kept.isEmpty { parameters[payloadType] = kept }
    }

    private mutating func readFeedback(_ value: Substring) {
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[1].utf8.count <= Self.maximumFeedbackLength else { return }
        let text = String(parts[1])
        if parts[0] == "*" {
            if wildcardFeedback.count < Self.maximumFeedbackValues, !wildcardFeedback.contains(text) {
                wildcardFeedback.append(text)
            }
        } else if let payloadType = Self.payloadType(parts[0]) {
            var values = feedbackByType[payloadType] ?? []
            guard values.count < Self.maximumFeedbackValues, !values.contains(text) else { return }
            values.append(text)
            feedbackByType[payloadType] = values
        }
    }
}

extension Substring {
    /// Whether two ASCII strings are equal ignoring case.
    func caseInsensitiveEquals(_ other: Substring) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        return zip(utf8, other.utf8).allSatisfy { a, b in
            a == b || (a | 0x20 == b | 0x20 && (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(a | 0x20))
        }
    }
}
