import RTP

/// The random values one outgoing stream starts with (RFC 3550 section 8.1, 5.1; RFC 4588): its SSRC, its RTX and
/// FlexFEC streams' SSRCs, every stream's first sequence numbers and its RTP timestamp offset. Drawn here and nowhere else, by every
/// front end (`H264Sender`, each WHEP viewer, `WHIPPublisher`).
package struct StreamIdentity: Sendable, Equatable {
    /// The media SSRC (never 0).
    package var ssrc: SSRC
    /// The RTX stream's SSRC (never 0, never the media SSRC), or nil without RTX.
    package var rtxSSRC: SSRC?
    /// The first RTP sequence number (below 2^15, RFC 3550 section 5.1's advice for SRTP).
    package var firstSequenceNumber: SequenceNumber
    /// The RTP timestamp of the first frame.
    package var timestampOffset: UInt32
    /// The RTX stream's first sequence number.
    package var rtxFirstSequenceNumber: SequenceNumber
    /// The FlexFEC stream's SSRC (never 0, never the media's or RTX's), or nil without FEC.
    package var fecSSRC: SSRC?
    /// The FlexFEC stream's first sequence number.
    package var fecFirstSequenceNumber: SequenceNumber
    /// The simulcast encoding's RTP stream id, or nil for a single stream.
    package var rid: String?

    /// The first frame's number in the dependency descriptor: random, from the timestamp offset's bits (a draw of
    /// its own would shift every later draw of a seeded generator).
    package var firstFrameNumber: UInt16 { UInt16(truncatingIfNeeded: timestampOffset >> 16 ^ timestampOffset) }

    /// Creates an identity from given values.
    package init(
        ssrc: SSRC, rtxSSRC: SSRC?, firstSequenceNumber: SequenceNumber, timestampOffset: UInt32,
        rtxFirstSequenceNumber: SequenceNumber = SequenceNumber(0), fecSSRC: SSRC? = nil,
        fecFirstSequenceNumber: SequenceNumber = SequenceNumber(0)
    ) {
        self.ssrc = ssrc
        self.rtxSSRC = rtxSSRC
        self.firstSequenceNumber = firstSequenceNumber
        self.timestampOffset = timestampOffset
        self.rtxFirstSequenceNumber = rtxFirstSequenceNumber
        self.fecSSRC = fecSSRC
        self.fecFirstSequenceNumber = fecFirstSequenceNumber
    }

    /// Draws what is not given.
    /// - Parameters:
    ///   - ssrc: the media SSRC, when the application chose it.
    ///   - rtx: whether the stream has an RTX stream.
    ///   - rtxSSRC: its SSRC, when chosen.
    ///   - firstSequenceNumber: the first sequence number, when chosen.
    ///   - fec: whether the stream has a FlexFEC stream.
    ///   - fecSSRC: its SSRC, when chosen.
    ///   - generator: the random source.
    /// - Returns: the identity.
    package static func draw(
        ssrc: SSRC? = nil, rtx: Bool, rtxSSRC: SSRC? = nil, firstSequenceNumber: SequenceNumber? = nil,
        fec: Bool = false, fecSSRC: SSRC? = nil, using generator: inout some RandomNumberGenerator
    ) -> StreamIdentity {
        let media = ssrc ?? SSRC(UInt32.random(in: 1 ... .max, using: &generator))
        var retransmission: SSRC?
        if rtx {
            var drawn = rtxSSRC ?? SSRC(UInt32.random(in: 1 ... .max, using: &generator))
            while drawn == media, rtxSSRC == nil { drawn = SSRC(UInt32.random(in: 1 ... .max, using: &generator)) }
            retransmission = drawn
        }
        var protection: SSRC?
        if fec {
            var drawn = fecSSRC ?? SSRC(UInt32.random(in: 1 ... .max, using: &generator))
            while drawn == media || drawn == retransmission, fecSSRC == nil {
                drawn = SSRC(UInt32.random(in: 1 ... .max, using: &generator))
            }
            protection = drawn
        }
        return StreamIdentity(
            ssrc: media, rtxSSRC: retransmission,
            firstSequenceNumber: firstSequenceNumber ?? SequenceNumber.randomInitial(using: &generator),
            timestampOffset: UInt32.random(in: .min ... .max, using: &generator),
            rtxFirstSequenceNumber: SequenceNumber.randomInitial(using: &generator), fecSSRC: protection,
            fecFirstSequenceNumber: fec ? SequenceNumber.randomInitial(using: &generator) : SequenceNumber(0))
    }

    /// Draws the identities of the simulcast streams after the first: one per RTP stream id, every media and RTX
    /// SSRC different from every other's (the first's included).
    /// - Parameters:
    ///   - rids: the further encodings' RTP stream ids, in order.
    ///   - first: the first stream's identity.
    ///   - rtx: whether each stream has an RTX stream.
    ///   - generator: the random source.
    /// - Returns: the identities, in the order of `rids`.
    package static func drawAdditional(
        rids: [String], after first: StreamIdentity, rtx: Bool, using generator: inout some RandomNumberGenerator
    ) -> [StreamIdentity] {
        var used: Set<SSRC> = Set([first.ssrc] + (first.rtxSSRC.map { [$0] } ?? []))
        return rids.map { rid in
            var drawn: StreamIdentity
            repeat {
                drawn = draw(rtx: rtx, using: &generator)
            } while used.contains(drawn.ssrc) || drawn.rtxSSRC.map(used.contains) == true
            used.insert(drawn.ssrc)
            if let rtx = drawn.rtxSSRC { used.insert(rtx) }
            drawn.rid = rid
            return drawn
        }
    }

    /// Draws what `configuration` leaves open (its `ssrc`, `rtx?.ssrc` and `firstSequenceNumber` are kept).
    package static func draw(
        for configuration: SenderConfiguration, using generator: inout some RandomNumberGenerator
    ) -> StreamIdentity {
        draw(
            ssrc: configuration.ssrc, rtx: configuration.rtx != nil, rtxSSRC: configuration.rtx?.ssrc,
            firstSequenceNumber: configuration.firstSequenceNumber, fec: configuration.fec != nil,
            fecSSRC: configuration.fec?.ssrc, using: &generator)
    }
}
