/// Everything that can go wrong while reading or writing H.264 bitstream structures.
///
/// Each case that points into the input carries a byte `offset` relative to the buffer handed to the throwing
/// function (for a NAL unit: its header byte is offset 0). Callers that know where that buffer sits in a larger one
/// (a stream, a file) rebase it with ``shifted(by:)``, so a message can always name the byte in the user's file.
public enum H264Error: Error, Hashable, Sendable, CustomStringConvertible {
    /// The input holds no NAL unit: no start code (Annex-B), or nothing at all.
    case noNALUnits
    /// Bytes other than `leading_zero_8bits` precede the first start code of an Annex-B stream (H.264 B.2).
    case dataBeforeFirstStartCode(offset: Int)
    /// A NAL unit has `forbidden_zero_bit` set (H.264 7.4.1).
    case forbiddenZeroBit(offset: Int)
    /// A length-prefixed (AVCC) stream ends inside a length field: `available` of `lengthSize` bytes are left.
    case truncatedLengthPrefix(offset: Int, lengthSize: Int, available: Int)
    /// A length prefix at `offset` announces `length` bytes but only `available` follow it.
    case lengthOverrun(offset: Int, length: Int, available: Int)
    /// A length prefix at `offset` is zero: a NAL unit has at least its header byte.
    case zeroLength(offset: Int)
    /// A NAL length field size other than 1, 2 or 4 bytes (ISO/IEC 14496-15 5.2.4.1: `lengthSizeMinusOne` 0, 1 or 3).
    case unsupportedLengthSize(Int)
    /// NAL unit number `index` (`length` bytes) does not fit a `lengthSize`-byte length field, or is empty.
    case nalUnitLengthNotRepresentable(index: Int, length: Int, lengthSize: Int)
    /// A NAL unit of type `found` was given where `expected` is required.
    case unexpectedNALUnitType(offset: Int, expected: NALUnitType, found: NALUnitType)
    /// The data ends before a syntax element does; `offset` is where the data ends (for a NAL unit, its size,
    /// emulation-prevention bytes included), the first byte that would have been needed.
    case endOfData(offset: Int)
    /// An Exp-Golomb code has more than 31 leading zero bits (its value does not fit 32 bits; H.264 9.1).
    case expGolombTooLong(offset: Int)
    /// A syntax element holds a value outside the range H.264 allows for it.
    case valueOutOfRange(offset: Int, field: String, value: Int)
    /// A `profile-level-id` string is not six hexadecimal digits (RFC 6184 section 8.1).
    case invalidProfileLevelID(String)
    /// An `avcC` record has a `configurationVersion` other than 1 (ISO/IEC 14496-15 5.2.4.1).
    case unsupportedConfigurationVersion(offset: Int, version: UInt8)
    /// An `avcC` record ends inside a field that starts at `offset`.
    case truncatedRecord(offset: Int)
    /// Too many parameter sets for an `avcC` count field (`limit`: the largest count the field can hold).
    case tooManyParameterSets(count: Int, limit: Int)
    /// A parameter set is empty or longer than the 16-bit length field of an `avcC` record.
    case parameterSetLengthNotRepresentable(length: Int)
    /// An `avcC` record was asked to describe no sequence parameter set.
    case missingSequenceParameterSet

    /// The byte offset the error points at, if any.
    public var offset: Int? {
        switch self {
        case .dataBeforeFirstStartCode(let o), .forbiddenZeroBit(let o), .zeroLength(let o), .endOfData(let o),
            .expGolombTooLong(let o), .truncatedRecord(let o):
            return o
        case .truncatedLengthPrefix(let o, _, _), .lengthOverrun(let o, _, _), .unexpectedNALUnitType(let o, _, _),
            .valueOutOfRange(let o, _, _), .unsupportedConfigurationVersion(let o, _):
            return o
        case .noNALUnits, .unsupportedLengthSize, .nalUnitLengthNotRepresentable, .invalidProfileLevelID,
            .tooManyParameterSets, .parameterSetLengthNotRepresentable, .missingSequenceParameterSet:
            return nil
        }
    }

    /// The same error with its offset moved by `base` bytes (errors without an offset are returned unchanged).
    /// - Parameter base: where the buffer the offset refers to starts inside the larger buffer.
    /// - Returns: the rebased error.
    public func shifted(by base: Int) -> H264Error {
        mappingOffset { $0 + base }
    }

    /// The same error with its offset passed through `transform`.
    func mappingOffset(_ transform: (Int) -> Int) -> H264Error {
        switch self {
        case .dataBeforeFirstStartCode(let o): return .dataBeforeFirstStartCode(offset: transform(o))
        case .forbiddenZeroBit(let o): return .forbiddenZeroBit(offset: transform(o))
        case .zeroLength(let o): return .zeroLength(offset: transform(o))
        case .endOfData(let o): return .endOfData(offset: transform(o))
        case .expGolombTooLong(let o): return .expGolombTooLong(offset: transform(o))
        case .truncatedRecord(let o): return .truncatedRecord(offset: transform(o))
        case .truncatedLengthPrefix(let o, let size, let available):
            return .truncatedLengthPrefix(offset: transform(o), lengthSize: size, available: available)
        case .lengthOverrun(let o, let length, let available):
            return .lengthOverrun(offset: transform(o), length: length, available: available)
        case .unexpectedNALUnitType(let o, let expected, let found):
            return .unexpectedNALUnitType(offset: transform(o), expected: expected, found: found)
        case .valueOutOfRange(let o, let field, let value):
            return .valueOutOfRange(offset: transform(o), field: field, value: value)
        case .unsupportedConfigurationVersion(let o, let version):
            return .unsupportedConfigurationVersion(offset: transform(o), version: version)
        case .noNALUnits, .unsupportedLengthSize, .nalUnitLengthNotRepresentable, .invalidProfileLevelID,
            .tooManyParameterSets, .parameterSetLengthNotRepresentable, .missingSequenceParameterSet:
            return self
        }
    }

    /// A one-line message naming the byte offset where there is one.
    public var description: String {
        switch self {
        case .noNALUnits:
            return "no NAL unit found (no start code)"
        case .dataBeforeFirstStartCode(let o):
            return "non-zero data before the first start code at byte offset \(o)"
        case .forbiddenZeroBit(let o):
            return "NAL unit with forbidden_zero_bit set at byte offset \(o)"
        case .truncatedLengthPrefix(let o, let size, let available):
            return "truncated \(size)-byte length prefix at byte offset \(o) (only \(available) bytes left)"
        case .lengthOverrun(let o, let length, let available):
            return "length prefix at byte offset \(o) announces \(length) bytes but only \(available) follow"
        case .zeroLength(let o):
            return "zero NAL unit length at byte offset \(o)"
        case .unsupportedLengthSize(let size):
            return "unsupported NAL length size \(size) (must be 1, 2 or 4)"
        case .nalUnitLengthNotRepresentable(let index, let length, let size):
            return "NAL unit \(index) of \(length) bytes cannot be written with a \(size)-byte length"
        case .unexpectedNALUnitType(let o, let expected, let found):
            return "expected a \(expected) NAL unit but found \(found) at byte offset \(o)"
        case .endOfData(let o):
            return "data ends inside a syntax element at byte offset \(o)"
        case .expGolombTooLong(let o):
            return "Exp-Golomb code longer than 32 bits at byte offset \(o)"
        case .valueOutOfRange(let o, let field, let value):
            return "\(field) = \(value) out of range at byte offset \(o)"
        case .invalidProfileLevelID(let text):
            return "invalid profile-level-id \"\(text)\" (expected 6 hexadecimal digits, e.g. 42e01f)"
        case .unsupportedConfigurationVersion(let o, let version):
            return "avcC configurationVersion \(version) at byte offset \(o) is not 1"
        case .truncatedRecord(let o):
            return "avcC record truncated at byte offset \(o)"
        case .tooManyParameterSets(let count, let limit):
            return "\(count) parameter sets exceed the avcC limit of \(limit)"
        case .parameterSetLengthNotRepresentable(let length):
            return "parameter set of \(length) bytes cannot be stored in avcC (1...65535)"
        case .missingSequenceParameterSet:
            return "an avcC record needs at least one sequence parameter set"
        }
    }
}
