extension BitReader {
    /// Checks a NAL unit's header, removes emulation prevention from its payload and runs `body` on a reader over it;
    /// errors thrown by `body` are rebased to byte offsets in the NAL unit (its header byte is offset 0).
    /// - Parameters:
    ///   - nalUnit: the NAL unit, header byte first.
    ///   - types: the NAL unit types accepted; the first is named in the error.
    ///   - payloadLimit: read at most this many escaped payload bytes (for parsers that need only a prefix).
    ///   - body: the syntax parser.
    /// - Throws: ``H264Error/forbiddenZeroBit(offset:)``, ``H264Error/unexpectedNALUnitType(offset:expected:found:)``,
    ///   ``H264Error/endOfData(offset:)`` for an empty unit, and whatever `body` throws.
    static func parsing<S: Collection, T>(
        nalUnit: S, as types: [NALUnitType], payloadLimit: Int = .max, _ body: (inout BitReader) throws(H264Error) -> T
    ) throws(H264Error) -> T where S.Element == UInt8 {
        guard let first = nalUnit.first else { throw .endOfData(offset: 0) }
        let header = NALUnitHeader(byte: first)
        guard !header.forbiddenZeroBit else { throw .forbiddenZeroBit(offset: 0) }
        guard types.contains(header.type) else {
            throw .unexpectedNALUnitType(offset: 0, expected: types[0], found: header.type)
        }
        let rbsp = RBSP(unescaping: nalUnit.dropFirst().prefix(payloadLimit))
        var reader = BitReader(rbsp.bytes)
        do {
            return try body(&reader)
        } catch {
            throw error.mappingOffset { rbsp.escapedOffset(forRBSPOffset: $0) + 1 }
        }
    }
}
