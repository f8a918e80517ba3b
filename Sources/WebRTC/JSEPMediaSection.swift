/// One `m=` section of a JSEP session description and the lines under it (RFC 8866 section 5.14, RFC 8829).
public struct JSEPMediaSection: Hashable, Sendable {
    /// `video`, `audio` or `application`.
    public var kind: String
    /// The port; 0 rejects the section (RFC 8829 section 5.3.1). With BUNDLE the default candidate's port, or 9.
    public var port: UInt16
    /// The protocol, `UDP/TLS/RTP/SAVPF` for WebRTC media.
    public var proto: String
    /// The formats: RTP payload types as text, in preference order.
    public var formats: [String]
    /// The `c=` value, e.g. `IN IP4 0.0.0.0`.
    public var connection: String?
    /// The `b=` values.
    public var bandwidths: [String] = []
    /// The `a=` lines in order.
    public var attributes: [SDPAttribute] = []

    /// The protocol WebRTC media uses (RFC 8829 section 5.1.2).
    public static let webRTCProtocol = "UDP/TLS/RTP/SAVPF"
    /// The port written when the real one comes from ICE (RFC 8829 section 5.2.1: the discard port, 9).
    public static let discardPort: UInt16 = 9
    /// The `c=` value written when the real address comes from ICE (RFC 8829 section 5.2.1).
    public static let unspecifiedConnection = "IN IP4 0.0.0.0"

    /// Creates a section.
    /// - Parameters:
    ///   - kind: `video`, `audio`, ...
    ///   - port: The port.
    ///   - proto: The protocol.
    ///   - formats: The formats.
    ///   - connection: The `c=` value.
    ///   - attributes: The `a=` lines.
    public init(kind: String, port: UInt16, proto: String, formats: [String], connection: String? = nil,
                attributes: [SDPAttribute] = []) {
        self.kind = kind
        self.port = port
        self.proto = proto
        self.formats = formats
        self.connection = connection
        self.attributes = attributes
    }

    /// The value of the first attribute with a name.
    /// - Parameters:
    ///   - name: The attribute name.
    /// - Returns: The value (empty for a property attribute), or `nil` when absent.
    public func attribute(_ name: String) -> String? {
        attributes.first { $0.name == name }.map { $0.value ?? "" }
    }

    /// The values of every attribute with a name, in order.
    public func attributes(named name: String) -> [String] {
        attributes.filter { $0.name == name }.map { $0.value ?? "" }
    }

    /// Whether an attribute is present.
    public func has(_ name: String) -> Bool { attributes.contains { $0.name == name } }

    /// `a=mid`.
    public var mid: String? { attribute("mid") }

    /// The longest mid accepted. RFC 8843 section 15.2 carries the mid in an RTP header extension of at most 16 bytes
    /// in the one-byte form; 32 leaves room for the two-byte form's peers while keeping what we echo short.
    public static let maximumMidLength = 32

    /// Whether a mid is an identification-tag: a `token` (RFC 5888 section 4, RFC 8866 section 9: `!#$%&'*+-.^_`{|}~`,
    /// digits and letters) of 1 to `maximumMidLength` characters. Our answer repeats the offer's mids, so anything
    /// else (a tab, a space, a control character) is refused rather than echoed.
    public static func isValidMid(_ mid: String) -> Bool {
        guard (1...maximumMidLength).contains(mid.utf8.count) else { return false }
        return mid.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "A")...UInt8(ascii: "Z"):
                true
            default: "!#$%&'*+-.^_`{|}~".utf8.contains(byte)
            }
        }
    }

    /// The direction attribute; `sendrecv` when none is given (RFC 8866 section 6.7).
    public var direction: String {
        for attribute in attributes where ["sendrecv", "sendonly", "recvonly", "inactive"].contains(attribute.name) {
            return attribute.name
        }
        return "sendrecv"
    }

    /// Whether the section is rejected (port 0).
    public var isRejected: Bool { port == 0 }

    /// `a=fmtp` parameters of a payload type as `name=value` pairs (names lower-cased).
    /// - Parameters:
    ///   - payloadType: The payload type.
    public func formatParameters(_ payloadType: Int) -> [String: String] {
        var parameters: [String: String] = [:]
        for value in attributes(named: "fmtp") {
            let parts = value.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, Int(parts[0]) == payloadType else { continue }
            for pair in parts[1].split(separator: ";") {
                let keyValue = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let key = keyValue[0].trimmingSpaces.lowercased()
                parameters[key] = keyValue.count == 2 ? String(keyValue[1].trimmingSpaces) : ""
            }
        }
        return parameters
    }

    /// `a=extmap` entries: id and URI (direction suffixes dropped).
    public var headerExtensions: [(id: Int, uri: String)] {
        attributes(named: "extmap").compactMap { value in
            let parts = value.split(separator: " ")
            guard parts.count >= 2, let id = Int(parts[0].split(separator: "/", omittingEmptySubsequences: false)[0]) else {
                return nil
            }
            return (id, String(parts[1]))
        }
    }

    /// The ID of the header extension `uri` for us to use: its first `a=extmap` ID when that is 1...14 (the RFC 8285
    /// one-byte form we write) and no other `a=extmap` of the section gives the same ID to another URI (RFC 8285
    /// section 5 forbids it; which one the peer would read is unknown). Otherwise nil: the extension is not used, so
    /// no packet carries an element the peer reads as something else.
    /// - Parameter uri: the extension's URI.
    /// - Returns: the ID, or nil.
    public func usableExtensionID(_ uri: String) -> Int? {
        let extensions = headerExtensions
        guard let id = extensions.first(where: { $0.uri == uri })?.id, (1...14).contains(id),
              !extensions.contains(where: { $0.id == id && $0.uri != uri })
        else { return nil }
        return id
    }

    /// The most remote candidates read from one section; later ones are ignored. A browser offers a handful per
    /// interface (host, server-reflexive, relayed, UDP and TCP); the bound keeps the ICE checklist (pairs x checks)
    /// small whatever an offer lists.
    public static let maximumCandidates = 64

    /// `a=candidate` lines that parse, at most `maximumCandidates` (others are skipped: a candidate we cannot read
    /// is one we cannot use).
    public var candidates: [ICECandidate] {
        var result: [ICECandidate] = []
        for attribute in attributes where attribute.name == "candidate" {
            guard result.count < Self.maximumCandidates else { break }
            if let candidate = try? ICECandidate(parsing: attribute.value ?? "") { result.append(candidate) }
        }
        return result
    }
}
