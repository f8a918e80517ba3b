import RTP

/// The simulcast streams of one m-section (RFC 8853 `a=simulcast`, RFC 8851 `a=rid`): which RTP stream ids one side
/// sends or receives, in the order `a=simulcast` lists them. Our WHIP offer sends one per encoding
/// (`a=rid:<id> send` and `a=simulcast:send q;h;f`); the endpoint's answer receives those it keeps
/// (`a=rid:<id> recv`, `a=simulcast:recv ...`). Only the first alternative of each stream is read (RFC 8853 section
/// 5.1 lets a stream list alternatives; we send one format), and a stream marked paused (`~`) is kept with the
/// mark.
public struct SimulcastDescription: Hashable, Sendable {
    /// One stream of `a=simulcast`.
    public struct Stream: Hashable, Sendable {
        /// Its RTP stream id (`a=rid`).
        public var rid: String
        /// Whether `a=simulcast` marks it paused (`~`).
        public var paused: Bool

        /// Creates a stream.
        /// - Parameters:
        ///   - rid: its RTP stream id.
        ///   - paused: whether it is paused.
        public init(rid: String, paused: Bool = false) {
            self.rid = rid
            self.paused = paused
        }
    }

    /// Whether the streams are sent or received by the side that wrote the section.
    public var direction: Direction
    /// The streams, in `a=simulcast` order.
    public var streams: [Stream]

    /// `send` or `recv` (RFC 8853 section 5.1, RFC 8851 section 10).
    public enum Direction: String, Hashable, Sendable {
        /// The writer sends these streams.
        case send
        /// The writer receives these streams.
        case recv

        /// The other side's direction.
        public var reversed: Direction { self == .send ? .recv : .send }
    }

    /// The longest RTP stream id accepted: what the `rtp-stream-id` header extension carries in one element of the
    /// one-byte form (RFC 8852 section 3.3, RFC 8285 section 4.2).
    public static let maximumRIDLength = RTPStreamID.maximumLength
    /// The most streams read from one `a=simulcast` (libwebrtc sends at most 3 video encodings; Janus takes 3).
    public static let maximumStreams = 8

    /// Creates a description.
    /// - Parameters:
    ///   - direction: the writer's direction.
    ///   - streams: the streams, in order.
    public init(direction: Direction, streams: [Stream]) {
        self.direction = direction
        self.streams = streams
    }

    /// Whether `rid` is an RTP stream id we write and accept: 1 to `maximumRIDLength` letters, digits, `-` or `_`
    /// (RFC 8851 section 10's `rid-id`).
    public static func isValidRID(_ rid: some StringProtocol) -> Bool { RTPStreamID.isValid(rid) }

    /// The attributes that say it: one `a=rid:<id> <direction>` per stream, then `a=simulcast:<direction> a;b;c`.
    public var attributes: [SDPAttribute] {
        streams.map { SDPAttribute("rid", "\($0.rid) \(direction.rawValue)") }
            + [SDPAttribute("simulcast", "\(direction.rawValue) " + streams.map { ($0.paused ? "~" : "") + $0.rid }
                .joined(separator: ";"))]
    }

    /// Reads a section's simulcast streams.
    /// - Parameters:
    ///   - section: the m-section.
    ///   - direction: the direction to read (`send` in an offer we answer or an answer to an endpoint's offer,
    ///     `recv` in an answer to our offer).
    /// - Returns: the streams of its `a=simulcast` in the given direction, or nil when it has none in that direction.
    /// - Throws: `JSEPError.malformedLine` for an `a=simulcast` or `a=rid` that does not parse, an id that is not a
    ///   valid RTP stream id, a stream named twice, more than `maximumStreams` streams, or a stream without an
    ///   `a=rid` of the same direction (RFC 8853 section 5.1 requires one).
    public static func read(from section: JSEPMediaSection, direction: Direction) throws(JSEPError)
        -> SimulcastDescription? {
        var listed: Substring?
        for value in section.attributes(named: "simulcast") {
            // a=simulcast:<dir> <streams>[ <dir> <streams>]
            let parts = value.split(separator: " ", omittingEmptySubsequences: true)
            guard parts.count == 2 || parts.count == 4 else { throw malformed("simulcast", value, "needs '<send|recv> <streams>'") }
            for index in stride(from: 0, to: parts.count, by: 2) {
                guard let found = Direction(rawValue: String(parts[index])) else {
                    throw malformed("simulcast", value, "direction must be send or recv")
                }
                if found == direction {
                    guard listed == nil else { throw malformed("simulcast", value, "lists the \(direction.rawValue) streams twice") }
                    listed = parts[index + 1]
                }
            }
        }
        guard let listed else { return nil }
        var rids: [String: Direction] = [:]
        for value in section.attributes(named: "rid") {
            // a=rid:<rid-id> <send|recv>[ <params>]
            let parts = value.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
            guard parts.count >= 2, let ridDirection = Direction(rawValue: String(parts[1])) else {
                throw malformed("rid", value, "needs '<id> <send|recv>'")
            }
            guard isValidRID(parts[0]) else {
                throw malformed("rid", value, "id must be 1-\(maximumRIDLength) letters, digits, '-' or '_'")
            }
            guard rids.updateValue(ridDirection, forKey: String(parts[0])) == nil else {
                throw malformed("rid", value, "names \(parts[0]) twice")
            }
            guard rids.count <= 4 * maximumStreams else { throw malformed("rid", value, "too many a=rid lines") }
        }
        var streams: [Stream] = []
        for entry in listed.split(separator: ";", omittingEmptySubsequences: false) {
            guard let first = entry.split(separator: ",", omittingEmptySubsequences: false).first, !first.isEmpty else {
                throw malformed("simulcast", String(listed), "has an empty stream")
            }
            let paused = first.hasPrefix("~")
            let rid = paused ? first.dropFirst() : first
            guard isValidRID(rid) else {
                throw malformed("simulcast", String(listed), "stream id must be 1-\(maximumRIDLength) letters, digits, '-' or '_'")
            }
            guard rids[String(rid)] == direction else {
                throw malformed("simulcast", String(listed), "names \(rid) without an a=rid:\(rid) \(direction.rawValue)")
            }
            guard !streams.contains(where: { $0.rid == rid }) else {
                throw malformed("simulcast", String(listed), "names \(rid) twice")
            }
            streams.append(Stream(rid: String(rid), paused: paused))
            guard streams.count <= maximumStreams else {
                throw malformed("simulcast", String(listed), "lists more than \(maximumStreams) streams")
            }
        }
        return SimulcastDescription(direction: direction, streams: streams)
    }

    private static func malformed(_ name: String, _ value: some StringProtocol, _ reason: String) -> JSEPError {
        .malformedLine(number: 0, line: PeerText.excerpt("a=\(name):\(value)"), reason: "a=\(name) \(reason)")
    }
}
