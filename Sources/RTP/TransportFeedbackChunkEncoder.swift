/// Chooses packet status chunks the way libwebrtc does (`TransportFeedback::LastChunk`), so that our feedback is
/// byte-identical to a browser's for the same statuses: symbols accumulate until the next one no longer fits a run
/// length, a 14-symbol one-bit vector or a 7-symbol two-bit vector; then the longest chunk that holds them is
/// emitted (draft-holmer-rmcat-transport-wide-cc-extensions-01 sections 3.1.3 and 3.1.4).
struct TransportFeedbackChunkEncoder {
    /// Symbols in a one-bit status vector chunk (draft section 3.1.4).
    static let oneBitCapacity = 14
    /// Symbols in a two-bit status vector chunk (draft section 3.1.4).
    static let twoBitCapacity = 7
    /// The largest run length (13 bits, draft section 3.1.3).
    static let runLengthCapacity = 0x1FFF

    /// The first `min(size, 14)` symbols, two bits each, symbol i at bits 2i.
    private var symbols: UInt32 = 0
    private var size = 0
    private var allSame = true
    private var hasLargeDelta = false

    var isEmpty: Bool { size == 0 }

    private func symbol(_ i: Int) -> UInt8 { UInt8(truncatingIfNeeded: symbols >> (2 * i)) & 0x3 }

    func canAdd(_ s: UInt8) -> Bool {
        if size < Self.twoBitCapacity { return true }
        if size < Self.oneBitCapacity, !hasLargeDelta, s != TransportFeedback.largeDeltaSymbol { return true }
        if size < Self.runLengthCapacity, allSame, symbol(0) == s { return true }
        return false
    }

    mutating func add(_ s: UInt8) {
        if size < Self.oneBitCapacity { symbols |= UInt32(s) << (2 * size) }
        allSame = allSame && (size == 0 || s == symbol(0))
        hasLargeDelta = hasLargeDelta || s == TransportFeedback.largeDeltaSymbol
        size += 1
    }

    /// Emits one chunk when the next symbol cannot be added, keeping what the chunk did not take.
    mutating func emit() -> UInt16 {
        if allSame {
            defer { self = Self() }
            return runLength()
        }
        if size == Self.oneBitCapacity {
            defer { self = Self() }
            return oneBit()
        }
        let chunk = twoBit(count: Self.twoBitCapacity)
        let remaining = size - Self.twoBitCapacity
        let rest = symbols >> (2 * Self.twoBitCapacity)
        self = Self()
        for i in 0..<remaining { add(UInt8(truncatingIfNeeded: rest >> (2 * i)) & 0x3) }
        return chunk
    }

    /// The chunk for the symbols left at the end.
    func encodeLast() -> UInt16 {
        if allSame { return runLength() }
        if size <= Self.twoBitCapacity { return twoBit(count: size) }
        return oneBit()
    }

    private func runLength() -> UInt16 { UInt16(symbol(0)) << 13 | UInt16(size) }

    private func oneBit() -> UInt16 {
        var chunk = TransportFeedback.statusVectorFlag
        for i in 0..<size { chunk |= UInt16(symbol(i)) << (13 - i) }
        return chunk
    }

    private func twoBit(count: Int) -> UInt16 {
        var chunk = TransportFeedback.statusVectorFlag | TransportFeedback.twoBitSymbolFlag
        for i in 0..<count { chunk |= UInt16(symbol(i)) << (2 * (6 - i)) }
        return chunk
    }

    /// Calls `body` with each chunk for `statuses`, in order.
    static func forEachChunk(_ statuses: [TransportFeedbackPacketStatus], _ body: (UInt16) -> Void) {
        var encoder = TransportFeedbackChunkEncoder()
        for status in statuses {
            let s = status.symbol
            if !encoder.canAdd(s) { body(encoder.emit()) }
            encoder.add(s)
        }
        if !encoder.isEmpty { body(encoder.encodeLast()) }
    }
}
