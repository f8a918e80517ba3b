extension AVCDecoderConfigurationRecord {
    /// Reserved bits written as ones before `lengthSizeMinusOne` and `chroma_format` (6 bits).
    static let reserved6: UInt8 = 0b1111_1100
    /// Reserved bits written as ones before `numOfSequenceParameterSets` (3 bits).
    static let reserved3: UInt8 = 0b1110_0000
    /// Reserved bits written as ones before the bit depths (5 bits).
    static let reserved5: UInt8 = 0b1111_1000

    /// The number of bytes ``serialize(into:)`` appends.
    public var serializedSize: Int {
        var size = 7 + sequenceParameterSets.reduce(0) { $0 + 2 + $1.count }
            + pictureParameterSets.reduce(0) { $0 + 2 + $1.count }
        if let chromaExtension {
            size += 4 + chromaExtension.sequenceParameterSetExtensions.reduce(0) { $0 + 2 + $1.count }
        }
        return size
    }

    /// Appends the record to a caller's buffer.
    /// - Parameter buffer: where to append.
    public func serialize(into buffer: inout [UInt8]) {
        buffer.reserveCapacity(buffer.count + serializedSize)
        buffer.append(Self.configurationVersion)
        buffer.append(profileIndication)
        buffer.append(profileCompatibility)
        buffer.append(levelIndication)
        buffer.append(Self.reserved6 | UInt8(lengthSize - 1))
        buffer.append(Self.reserved3 | UInt8(sequenceParameterSets.count))
        Self.appendSets(sequenceParameterSets, to: &buffer)
        buffer.append(UInt8(pictureParameterSets.count))
        Self.appendSets(pictureParameterSets, to: &buffer)
        if let chromaExtension {
            buffer.append(Self.reserved6 | chromaExtension.chromaFormat & 0x03)
            buffer.append(Self.reserved5 | chromaExtension.bitDepthLumaMinus8 & 0x07)
            buffer.append(Self.reserved5 | chromaExtension.bitDepthChromaMinus8 & 0x07)
            buffer.append(UInt8(chromaExtension.sequenceParameterSetExtensions.count))
            Self.appendSets(chromaExtension.sequenceParameterSetExtensions, to: &buffer)
        }
    }

    /// The serialized record.
    public var bytes: [UInt8] {
        var out: [UInt8] = []
        serialize(into: &out)
        return out
    }

    private static func appendSets(_ sets: [[UInt8]], to buffer: inout [UInt8]) {
        for set in sets {
            buffer.append(UInt8(set.count >> 8))
            buffer.append(UInt8(set.count & 0xFF))
            buffer.append(contentsOf: set)
        }
    }

    /// Parses a serialized record. The High-profile extension is read when the profile calls for it and bytes
    /// remain (older writers omit it); bytes after the record are ignored, as 14496-15 allows later extensions.
    /// - Parameter bytes: the `avcC` box payload.
    /// - Throws: ``H264Error/truncatedRecord(offset:)``, ``H264Error/unsupportedConfigurationVersion(offset:version:)``,
    ///   ``H264Error/unsupportedLengthSize(_:)`` (for `lengthSizeMinusOne` 2), ``H264Error/zeroLength(offset:)`` for an
    ///   empty parameter set.
    public init(bytes: [UInt8]) throws(H264Error) {
        var offset = 0
        func byte() throws(H264Error) -> UInt8 {
            guard offset < bytes.count else { throw .truncatedRecord(offset: offset) }
            defer { offset += 1 }
            return bytes[offset]
        }
        func sets(count: Int) throws(H264Error) -> [[UInt8]] {
            var result: [[UInt8]] = []
            for _ in 0..<count {
                let lengthOffset = offset
                guard offset + 2 <= bytes.count else { throw .truncatedRecord(offset: offset) }
                let length = Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
                guard length > 0 else { throw .zeroLength(offset: lengthOffset) }
                offset += 2
                guard offset + length <= bytes.count else { throw .truncatedRecord(offset: lengthOffset) }
                result.append(Array(bytes[offset..<(offset + length)]))
                offset += length
            }
            return result
        }

        let version = try byte()
        guard version == Self.configurationVersion else {
            throw .unsupportedConfigurationVersion(offset: 0, version: version)
        }
        let profile = try byte()
        let compatibility = try byte()
        let level = try byte()
        let lengthSize = Int(try byte() & 0x03) + 1
        let spsList = try sets(count: Int(try byte() & 0x1F))
        let ppsList = try sets(count: Int(try byte()))
        var chromaExtension: ChromaExtension? = nil
        if Self.extendedProfileIndications.contains(profile) && offset < bytes.count {
            let chroma = try byte() & 0x03
            let luma = try byte() & 0x07
            let chromaDepth = try byte() & 0x07
            let extensions = try sets(count: Int(try byte()))
            chromaExtension = ChromaExtension(
                chromaFormat: chroma, bitDepthLumaMinus8: luma, bitDepthChromaMinus8: chromaDepth,
                sequenceParameterSetExtensions: extensions)
        }
        try self.init(
            profileIndication: profile, profileCompatibility: compatibility, levelIndication: level,
            lengthSize: lengthSize, sequenceParameterSets: spsList, pictureParameterSets: ppsList,
            chromaExtension: chromaExtension)
    }
}
