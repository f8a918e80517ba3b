import H264

/// Plans the RTP payloads of one access unit (RFC 6184): a pure function of the NAL unit sizes, the payload limit
/// and the packetization mode. The packetizer walks the same plan without allocating.
///
/// Mode 1 rules, as libwebrtc's `RtpPacketizerH264`:
/// - consecutive NAL units that fit together in one STAP-A (at least two of them) are aggregated; typically SPS,
///   PPS and SEI ahead of the first slice, so the parameter sets travel in one packet;
/// - a NAL unit that fits goes alone in a single NAL unit packet;
/// - a larger one is cut into FU-A fragments of near-equal size (sizes differ by at most one byte, so there is no
///   tiny last fragment).
///
/// Mode 0 allows single NAL unit packets only; a NAL unit over the limit is `H264PayloadError.nalUnitTooLarge`.
public enum H264Payloader {
    /// Bytes of the STAP-A NAL header (RFC 6184 section 5.7.1).
    public static let stapAHeaderSize = 1
    /// Bytes of each STAP-A NAL size field (RFC 6184 section 5.7.1, "16 bits NALU size").
    public static let stapASizeFieldSize = 2
    /// Bytes of FU indicator + FU header (RFC 6184 section 5.8).
    public static let fuAHeaderSize = 2
    /// The smallest usable payload limit: a FU-A with one byte of data.
    public static let minimumPayloadLimit = fuAHeaderSize + 1

    /// Plans the payloads of an access unit.
    /// - Parameters:
    ///   - nalUnits: the NAL units in decoding order (only `length` is used).
    ///   - maxPayloadSize: the largest RTP payload allowed.
    ///   - mode: the packetization mode.
    /// - Returns: the payloads in transmission order; the last one has `isLastOfAccessUnit`.
    /// - Throws: `H264PayloadError` (`.emptyAccessUnit`, `.emptyNALUnit`, `.nalUnitTooLarge`, `.payloadLimitTooSmall`).
    public static func payloads(
        for nalUnits: [NALUnitLocation], maxPayloadSize: Int, mode: H264PacketizationMode = .nonInterleaved
    ) throws(H264PayloadError) -> [H264PayloadDescriptor] {
        var plan = try Plan(nalUnits: nalUnits, maxPayloadSize: maxPayloadSize, mode: mode)
        var result: [H264PayloadDescriptor] = []
        while let next = plan.next() { result.append(next) }
        return result
    }

    /// A non-allocating walk over the payloads of one access unit. The initializer validates everything, so
    /// `next()` cannot fail halfway through a frame.
    public struct Plan: Sendable {
        let nalUnits: [NALUnitLocation]
        let maxPayloadSize: Int
        let mode: H264PacketizationMode
        var index = 0
        // FU-A state for NAL `index`: fragments done, fragment count, bytes to split (NAL length - 1).
        var fragment = 0
        var fragmentCount = 0

        /// Starts a plan.
        /// - Parameters:
        ///   - nalUnits: the NAL units in decoding order.
        ///   - maxPayloadSize: the largest RTP payload allowed.
        ///   - mode: the packetization mode.
        /// - Throws: `H264PayloadError` when the frame cannot be sent under these limits.
        public init(nalUnits: [NALUnitLocation], maxPayloadSize: Int, mode: H264PacketizationMode) throws(H264PayloadError) {
            guard maxPayloadSize >= H264Payloader.minimumPayloadLimit else { throw .payloadLimitTooSmall(maxPayloadSize) }
            guard !nalUnits.isEmpty else { throw .emptyAccessUnit }
            for (i, nal) in nalUnits.enumerated() {
                guard nal.length > 0 else { throw .emptyNALUnit(index: i) }
                if mode == .singleNALUnit, nal.length > maxPayloadSize {
                    throw .nalUnitTooLarge(size: nal.length, limit: maxPayloadSize)
                }
            }
            self.nalUnits = nalUnits
            self.maxPayloadSize = maxPayloadSize
            self.mode = mode
        }

        /// The next payload, or `nil` after the last one.
        public mutating func next() -> H264PayloadDescriptor? {
            guard index < nalUnits.count else { return nil }
            let count = nalUnits.count
            if fragmentCount > 0 {
                return nextFragment()
            }
            let length = nalUnits[index].length
            if mode == .nonInterleaved {
                // Greedy STAP-A: take NAL units while the aggregate fits.
                var size = H264Payloader.stapAHeaderSize
                var end = index
                while end < count {
                    let grown = size + H264Payloader.stapASizeFieldSize + nalUnits[end].length
                    // A STAP-A NAL unit size field has 16 bits (RFC 6184 section 5.7.1).
                    if grown > maxPayloadSize || nalUnits[end].length > Int(UInt16.max) { break }
                    size = grown
                    end += 1
                }
                if end - index >= 2 {
                    let descriptor = H264PayloadDescriptor(
                        kind: .stapA(indices: index..<end), size: size, isLastOfAccessUnit: end == count)
                    index = end
                    return descriptor
                }
            }
            if length <= maxPayloadSize {
                let descriptor = H264PayloadDescriptor(
                    kind: .single(index: index), size: length, isLastOfAccessUnit: index == count - 1)
                index += 1
                return descriptor
            }
            // FU-A: split the bytes after the NAL header into the fewest fragments of near-equal size.
            let capacity = maxPayloadSize - H264Payloader.fuAHeaderSize
            let bytes = length - 1
            fragmentCount = (bytes + capacity - 1) / capacity
            fragment = 0
            return nextFragment()
        }

        private mutating func nextFragment() -> H264PayloadDescriptor {
            let length = nalUnits[index].length
            let bytes = length - 1
            let base = bytes / fragmentCount
            let larger = bytes % fragmentCount  // the first `larger` fragments get one extra byte
            let start = 1 + fragment * base + min(fragment, larger)
            let size = base + (fragment < larger ? 1 : 0)
            let isStart = fragment == 0
            let isEnd = fragment == fragmentCount - 1
            let descriptor = H264PayloadDescriptor(
                kind: .fuA(index: index, range: start..<(start + size), isStart: isStart, isEnd: isEnd),
                size: H264Payloader.fuAHeaderSize + size,
                isLastOfAccessUnit: isEnd && index == nalUnits.count - 1)
            fragment += 1
            if isEnd {
                fragmentCount = 0
                fragment = 0
                index += 1
            }
            return descriptor
        }
    }
}
