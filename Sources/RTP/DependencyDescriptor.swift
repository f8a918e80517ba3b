import H264

/// The Dependency Descriptor RTP header extension (the AV1 RTP specification, Appendix A), which libwebrtc also puts on
/// H.264 with temporal layers: each packet says which frame it belongs to (`frameNumber`), which template describes
/// the frame (its spatial and temporal layer, the decode targets it is part of, the frames it references and the
/// chains it continues), and whether it starts or ends the frame. A forwarder (an SFU) thins the stream by decode
/// target without parsing the codec.
///
/// The templates (`DependencyStructure`) are sent on the first packet of each keyframe; every other packet carries
/// the 3 mandatory bytes, or more when the frame differs from its template (custom decode target indications, frame
/// differences or chain differences) or the active decode targets change. Reading a descriptor without a structure
/// needs the structure from an earlier keyframe (`DependencyDescriptor(parsing:structure:)`).
///
/// Layout (A.8.2, most significant bit first): `start_of_frame` f(1), `end_of_frame` f(1),
/// `frame_dependency_template_id` f(6), `frame_number` f(16); when longer than 3 bytes the five flags (structure
/// present, active decode targets present, custom DTIs, custom fdiffs, custom chains), the structure, the active
/// decode targets bitmask f(DtCnt), then the custom fields, and zero padding to the byte. Pure.
public struct DependencyDescriptor: Sendable, Equatable {
    /// The extension's URI in `a=extmap` (A.9).
    public static let uri = "https://aomediacodec.github.io/av1-rtp-spec/#dependency-descriptor-rtp-header-extension"
    /// The mandatory fields' size in bytes.
    public static let mandatorySize = 3

    /// Whether this packet carries the frame's first byte.
    public var startOfFrame: Bool
    /// Whether this packet carries the frame's last byte.
    public var endOfFrame: Bool
    /// `frame_dependency_template_id` (0-63): the template's index plus the structure's `templateIDOffset`, mod 64.
    public var templateID: UInt8
    /// The frame's number in decode order (wraps at 2^16).
    public var frameNumber: UInt16
    /// The structure, when attached (the first packet of a keyframe).
    public var structure: DependencyStructure?
    /// The active decode targets (bit i = decode target i), when signalled; with a structure attached and none given,
    /// all are active.
    public var activeDecodeTargets: UInt32?
    /// The frame's decode target indications where they differ from its template's.
    public var customDecodeTargetIndications: [DecodeTargetIndication]?
    /// The frame's differences to the frames it references (1-4096) where they differ from its template's.
    public var customFrameDiffs: [Int]?
    /// The frame's chain differences (0-255) where they differ from its template's.
    public var customChainDiffs: [Int]?

    /// Creates a descriptor.
    /// - Parameters:
    ///   - startOfFrame: whether the packet starts the frame.
    ///   - endOfFrame: whether the packet ends the frame.
    ///   - templateID: the wire template id (0-63; higher bits are dropped when written).
    ///   - frameNumber: the frame number.
    ///   - structure: the structure to attach, if any.
    ///   - activeDecodeTargets: the active decode targets bitmask, if signalled.
    ///   - customDecodeTargetIndications: custom DTIs, if any.
    ///   - customFrameDiffs: custom frame differences, if any.
    ///   - customChainDiffs: custom chain differences, if any.
    public init(
        startOfFrame: Bool, endOfFrame: Bool, templateID: UInt8, frameNumber: UInt16,
        structure: DependencyStructure? = nil, activeDecodeTargets: UInt32? = nil,
        customDecodeTargetIndications: [DecodeTargetIndication]? = nil, customFrameDiffs: [Int]? = nil,
        customChainDiffs: [Int]? = nil
    ) {
        self.startOfFrame = startOfFrame
        self.endOfFrame = endOfFrame
        self.templateID = templateID
        self.frameNumber = frameNumber
        self.structure = structure
        self.activeDecodeTargets = activeDecodeTargets
        self.customDecodeTargetIndications = customDecodeTargetIndications
        self.customFrameDiffs = customFrameDiffs
        self.customChainDiffs = customChainDiffs
    }

    /// Whether anything beyond the mandatory fields is written.
    private var isExtended: Bool {
        structure != nil || activeDecodeTargets != nil || customDecodeTargetIndications != nil
            || customFrameDiffs != nil || customChainDiffs != nil
    }

    /// The descriptor's bytes.
    /// - Parameter current: the structure in force (from the last keyframe) when none is attached; the custom fields
    ///   and the active decode targets are sized by it.
    /// - Returns: 3 bytes, or more with the extended fields.
    /// - Throws: `DependencyDescriptorError` when a field does not fit its structure (a count or a value out of range,
    ///   or custom fields without any structure).
    public func serialized(current: DependencyStructure? = nil) throws(DependencyDescriptorError) -> [UInt8] {
        var bits = BitSink()
        bits.write(startOfFrame ? 1 : 0, 1)
        bits.write(endOfFrame ? 1 : 0, 1)
        bits.write(UInt64(templateID & 0x3F), 6)
        bits.write(UInt64(frameNumber), 16)
        guard isExtended else { return bits.bytes() }
        let structure = self.structure ?? current
        try structure?.validate()
        bits.write(self.structure != nil ? 1 : 0, 1)
        bits.write(activeDecodeTargets != nil ? 1 : 0, 1)
        bits.write(customDecodeTargetIndications != nil ? 1 : 0, 1)
        bits.write(customFrameDiffs != nil ? 1 : 0, 1)
        bits.write(customChainDiffs != nil ? 1 : 0, 1)
        if let attached = self.structure { try attached.write(to: &bits) }
        if let activeDecodeTargets {
            guard let structure else { throw .noStructure }
            bits.write(UInt64(activeDecodeTargets) & ((1 << UInt64(structure.decodeTargetCount)) - 1),
                       structure.decodeTargetCount)
        }
        if let dtis = customDecodeTargetIndications {
            guard let structure else { throw .noStructure }
            guard dtis.count == structure.decodeTargetCount else { throw .countMismatch("custom DTIs") }
            for dti in dtis { bits.write(UInt64(dti.rawValue), 2) }
        }
        if let diffs = customFrameDiffs {
            guard structure != nil else { throw .noStructure }
            for diff in diffs {
                guard (1...4096).contains(diff) else { throw .valueOutOfRange("frame diff \(diff)") }
                let value = UInt64(diff - 1)
                let size = value < 1 << 4 ? 1 : value < 1 << 8 ? 2 : 3
                bits.write(UInt64(size), 2)
                bits.write(value, 4 * size)
            }
            bits.write(0, 2)
        }
        if let chains = customChainDiffs {
            guard let structure else { throw .noStructure }
            guard chains.count == structure.chainCount else { throw .countMismatch("custom chain diffs") }
            for chain in chains {
                guard (0...255).contains(chain) else { throw .valueOutOfRange("chain diff \(chain)") }
                bits.write(UInt64(chain), 8)
            }
        }
        return bits.bytes()
    }

    /// Reads a descriptor.
    /// - Parameters:
    ///   - bytes: the extension element's data.
    ///   - structure: the structure in force (from the last keyframe), needed to read anything beyond the mandatory
    ///     fields when none is attached.
    /// - Throws: `DependencyDescriptorError` for a descriptor shorter than 3 bytes, a structure or field that runs past
    ///   the end, counts beyond the specification's limits, a template id the structure does not have, or extended
    ///   fields without a structure.
    public init(parsing bytes: some Collection<UInt8>, structure: DependencyStructure? = nil)
        throws(DependencyDescriptorError)
    {
        let data = Array(bytes)
        guard data.count >= Self.mandatorySize else { throw .truncated }
        var bits = BitSource(data)
        startOfFrame = try bits.read(1) == 1
        endOfFrame = try bits.read(1) == 1
        templateID = UInt8(try bits.read(6))
        frameNumber = UInt16(try bits.read(16))
        self.structure = nil
        activeDecodeTargets = nil
        customDecodeTargetIndications = nil
        customFrameDiffs = nil
        customChainDiffs = nil
        guard data.count > Self.mandatorySize else {
            if let structure { _ = try structure.templateIndex(of: templateID) }
            return
        }
        let structurePresent = try bits.read(1) == 1
        let activePresent = try bits.read(1) == 1
        let customDTIs = try bits.read(1) == 1
        let customDiffs = try bits.read(1) == 1
        let customChains = try bits.read(1) == 1
        if structurePresent { self.structure = try DependencyStructure(reading: &bits) }
        guard let current = self.structure ?? structure else {
            if activePresent || customDTIs || customDiffs || customChains { throw .noStructure }
            return
        }
        if activePresent { activeDecodeTargets = UInt32(try bits.read(current.decodeTargetCount)) }
        _ = try current.templateIndex(of: templateID)
        if customDTIs {
            var dtis: [DecodeTargetIndication] = []
            for _ in 0..<current.decodeTargetCount {
                dtis.append(DecodeTargetIndication(rawValue: UInt8(try bits.read(2))) ?? .notPresent)  // 2 bits: 0-3
            }
            customDecodeTargetIndications = dtis
        }
        if customDiffs {
            var diffs: [Int] = []
            var size = try bits.read(2)
            while size != 0 {
                diffs.append(Int(try bits.read(4 * Int(size))) + 1)
                size = try bits.read(2)
            }
            customFrameDiffs = diffs
        }
        if customChains {
            var chains: [Int] = []
            for _ in 0..<current.chainCount { chains.append(Int(try bits.read(8))) }
            customChainDiffs = chains
        }
    }
}

/// How a frame matters to a decode target (A.8.3.1).
public enum DecodeTargetIndication: UInt8, Sendable, CaseIterable {
    /// Not present in the decode target (`-`).
    case notPresent = 0
    /// Present, and no later frame of the decode target depends on it (`D`).
    case discardable = 1
    /// Present, and the decode target can be joined at it (`S`).
    case `switch` = 2
    /// Present and needed (`R`).
    case required = 3
}

/// One template of a dependency structure: the layer of the frames it describes, their decode target indications,
/// their differences to the frames they reference and their chain differences.
public struct FrameDependencyTemplate: Sendable, Equatable {
    /// The spatial layer (0-3).
    public var spatialID: Int
    /// The temporal layer (0-7).
    public var temporalID: Int
    /// One indication per decode target.
    public var decodeTargetIndications: [DecodeTargetIndication]
    /// Frame number differences to the referenced frames (1-16 in a template).
    public var frameDiffs: [Int]
    /// One difference per chain (0-15 in a template; 0: the chain needs no earlier frame).
    public var chainDiffs: [Int]

    /// Creates a template.
    /// - Parameters:
    ///   - spatialID: the spatial layer.
    ///   - temporalID: the temporal layer.
    ///   - decodeTargetIndications: one per decode target.
    ///   - frameDiffs: the referenced frames' differences.
    ///   - chainDiffs: one per chain.
    public init(
        spatialID: Int, temporalID: Int, decodeTargetIndications: [DecodeTargetIndication], frameDiffs: [Int],
        chainDiffs: [Int]
    ) {
        self.spatialID = spatialID
        self.temporalID = temporalID
        self.decodeTargetIndications = decodeTargetIndications
        self.frameDiffs = frameDiffs
        self.chainDiffs = chainDiffs
    }

    /// A template from its indications written as `-`, `D`, `S`, `R` (as libwebrtc's structures are written).
    /// - Parameters:
    ///   - temporalID: the temporal layer (spatial layer 0).
    ///   - indications: one character per decode target.
    ///   - frameDiffs: the referenced frames' differences.
    ///   - chainDiffs: one per chain.
    static func layer(_ temporalID: Int, _ indications: String, frameDiffs: [Int], chainDiffs: [Int]) -> Self {
        let dtis = indications.map { character -> DecodeTargetIndication in
            switch character {
            case "D": .discardable
            case "S": .switch
            case "R": .required
            default: .notPresent
            }
        }
        return Self(spatialID: 0, temporalID: temporalID, decodeTargetIndications: dtis, frameDiffs: frameDiffs,
                    chainDiffs: chainDiffs)
    }
}

/// The templates a stream's descriptors refer to (A.8.2 `template_dependency_structure`), sent on keyframes.
public struct DependencyStructure: Sendable, Equatable {
    /// The most templates a structure holds.
    public static let maximumTemplates = 64
    /// The most decode targets.
    public static let maximumDecodeTargets = 32
    /// The highest spatial layer.
    public static let maximumSpatialID = 3
    /// The highest temporal layer.
    public static let maximumTemporalID = 7

    /// Added to a template's index (mod 64) to give its wire id; a new structure moves it so that descriptors of the
    /// old one are not read with the new.
    public var templateIDOffset: Int
    /// The decode targets.
    public var decodeTargetCount: Int
    /// The chains (0 to `decodeTargetCount`).
    public var chainCount: Int
    /// The chain protecting each decode target (empty without chains).
    public var decodeTargetProtectedByChain: [Int]
    /// The templates, ordered by spatial, then temporal layer; the first is spatial 0, temporal 0.
    public var templates: [FrameDependencyTemplate]
    /// The largest picture of each spatial layer, when given.
    public var resolutions: [RenderResolution]?

    /// A spatial layer's largest picture.
    public struct RenderResolution: Sendable, Equatable {
        /// Width in pixels (1-65536).
        public var width: Int
        /// Height in pixels (1-65536).
        public var height: Int

        /// Creates a resolution.
        /// - Parameters:
        ///   - width: the width in pixels.
        ///   - height: the height in pixels.
        public init(width: Int, height: Int) {
            self.width = width
            self.height = height
        }
    }

    /// Creates a structure.
    /// - Parameters:
    ///   - templateIDOffset: the template id offset (0-63).
    ///   - decodeTargetCount: the decode targets (1-32).
    ///   - chainCount: the chains.
    ///   - decodeTargetProtectedByChain: the chain of each decode target (empty without chains).
    ///   - templates: the templates.
    ///   - resolutions: each spatial layer's largest picture, if given.
    public init(
        templateIDOffset: Int = 0, decodeTargetCount: Int, chainCount: Int, decodeTargetProtectedByChain: [Int],
        templates: [FrameDependencyTemplate], resolutions: [RenderResolution]? = nil
    ) {
        self.templateIDOffset = templateIDOffset
        self.decodeTargetCount = decodeTargetCount
        self.chainCount = chainCount
        self.decodeTargetProtectedByChain = decodeTargetProtectedByChain
        self.templates = templates
        self.resolutions = resolutions
    }

    /// libwebrtc's structure for one spatial layer and `temporalLayers` temporal layers (L1T1, L1T2, L1T3;
    /// `scalability_structure_full_svc.cc`): decode target k holds temporal layers 0...k, one chain (the T0 frames)
    /// protects them all; the templates: the keyframe, T0 on the previous T0, then the upper layers' frames.
    /// - Parameter temporalLayers: 1, 2 or 3 (others give nil).
    /// - Returns: the structure, or nil.
    public static func singleSpatialLayer(temporalLayers: Int) -> DependencyStructure? {
        let templates: [FrameDependencyTemplate]
        switch temporalLayers {
        case 1:
            templates = [.layer(0, "S", frameDiffs: [], chainDiffs: [0]), .layer(0, "S", frameDiffs: [1], chainDiffs: [1])]
        case 2:
            templates = [
                .layer(0, "SS", frameDiffs: [], chainDiffs: [0]),
                .layer(0, "SS", frameDiffs: [2], chainDiffs: [2]),
                .layer(1, "-D", frameDiffs: [1], chainDiffs: [1]),
            ]
        case 3:
            templates = [
                .layer(0, "SSS", frameDiffs: [], chainDiffs: [0]),
                .layer(0, "SSS", frameDiffs: [4], chainDiffs: [4]),
                .layer(1, "-DS", frameDiffs: [2], chainDiffs: [2]),
                .layer(2, "--D", frameDiffs: [1], chainDiffs: [1]),
                .layer(2, "--D", frameDiffs: [1], chainDiffs: [3]),
            ]
        default:
            return nil
        }
        return DependencyStructure(
            decodeTargetCount: temporalLayers, chainCount: 1,
            decodeTargetProtectedByChain: Array(repeating: 0, count: temporalLayers), templates: templates)
    }

    /// The index of the template a wire template id names.
    /// - Parameter templateID: the wire id.
    /// - Returns: the index into `templates`.
    /// - Throws: `DependencyDescriptorError.unknownTemplate` when the structure has no such template.
    public func templateIndex(of templateID: UInt8) throws(DependencyDescriptorError) -> Int {
        let index = (Int(templateID & 0x3F) + 64 - templateIDOffset % 64) % 64
        guard index < templates.count else { throw .unknownTemplate(templateID) }
        return index
    }

    /// The wire template id of a template.
    /// - Parameter index: the template's index.
    /// - Returns: `(index + templateIDOffset) % 64`.
    public func templateID(ofIndex index: Int) -> UInt8 {
        UInt8((index + templateIDOffset % 64) % 64)
    }

    /// Checks the limits A.8.3 sets, before writing.
    fileprivate func validate() throws(DependencyDescriptorError) {
        guard (0..<64).contains(templateIDOffset) else { throw .valueOutOfRange("template id offset \(templateIDOffset)") }
        guard (1...Self.maximumDecodeTargets).contains(decodeTargetCount) else {
            throw .valueOutOfRange("decode target count \(decodeTargetCount)")
        }
        guard (0...decodeTargetCount).contains(chainCount) else { throw .valueOutOfRange("chain count \(chainCount)") }
        guard decodeTargetProtectedByChain.count == (chainCount > 0 ? decodeTargetCount : 0),
            decodeTargetProtectedByChain.allSatisfy({ (0..<max(chainCount, 1)).contains($0) })
        else { throw .countMismatch("decode targets protected by chain") }
        guard (1...Self.maximumTemplates).contains(templates.count), templates[0].spatialID == 0,
            templates[0].temporalID == 0
        else { throw .valueOutOfRange("templates") }
        for (previous, next) in zip(templates, templates.dropFirst()) {
            let sameLayer = next.spatialID == previous.spatialID && next.temporalID == previous.temporalID
            let nextTemporal = next.spatialID == previous.spatialID && next.temporalID == previous.temporalID + 1
            let nextSpatial = next.spatialID == previous.spatialID + 1 && next.temporalID == 0
            guard sameLayer || nextTemporal || nextSpatial else { throw .valueOutOfRange("template layer order") }
        }
        for template in templates {
            guard template.spatialID <= Self.maximumSpatialID, template.temporalID <= Self.maximumTemporalID else {
                throw .valueOutOfRange("template layer")
            }
            guard template.decodeTargetIndications.count == decodeTargetCount else { throw .countMismatch("template DTIs") }
            guard template.frameDiffs.allSatisfy({ (1...16).contains($0) }) else {
                throw .valueOutOfRange("template frame diffs")
            }
            guard template.chainDiffs.count == chainCount, template.chainDiffs.allSatisfy({ (0...15).contains($0) }) else {
                throw .countMismatch("template chain diffs")
            }
        }
        if let resolutions {
            guard resolutions.count == (templates.last?.spatialID ?? 0) + 1,
                resolutions.allSatisfy({ (1...65_536).contains($0.width) && (1...65_536).contains($0.height) })
            else { throw .countMismatch("render resolutions") }
        }
    }

    fileprivate func write(to bits: inout BitSink) throws(DependencyDescriptorError) {
        try validate()
        bits.write(UInt64(templateIDOffset), 6)
        bits.write(UInt64(decodeTargetCount - 1), 5)
        for (previous, next) in zip(templates, templates.dropFirst()) {
            let idc: UInt64 = next.spatialID > previous.spatialID ? 2 : next.temporalID > previous.temporalID ? 1 : 0
            bits.write(idc, 2)
        }
        bits.write(3, 2)
        for template in templates {
            for dti in template.decodeTargetIndications { bits.write(UInt64(dti.rawValue), 2) }
        }
        for template in templates {
            for diff in template.frameDiffs {
                bits.write(1, 1)
                bits.write(UInt64(diff - 1), 4)
            }
            bits.write(0, 1)
        }
        bits.writeNonSymmetric(UInt64(chainCount), count: UInt64(decodeTargetCount + 1))
        if chainCount > 0 {
            for chain in decodeTargetProtectedByChain {
                bits.writeNonSymmetric(UInt64(chain), count: UInt64(chainCount))
            }
            for template in templates {
                for diff in template.chainDiffs { bits.write(UInt64(diff), 4) }
            }
        }
        bits.write(resolutions != nil ? 1 : 0, 1)
        for resolution in resolutions ?? [] {
            bits.write(UInt64(resolution.width - 1), 16)
            bits.write(UInt64(resolution.height - 1), 16)
        }
    }

    fileprivate init(reading bits: inout BitSource) throws(DependencyDescriptorError) {
        templateIDOffset = Int(try bits.read(6))
        decodeTargetCount = Int(try bits.read(5)) + 1
        var layers: [(spatial: Int, temporal: Int)] = [(0, 0)]
        while true {
            let idc = try bits.read(2)
            if idc == 3 { break }
            guard layers.count < Self.maximumTemplates else { throw .valueOutOfRange("more than 64 templates") }
            let last = layers[layers.count - 1]
            switch idc {
            case 0: layers.append(last)
            case 1: layers.append((last.spatial, last.temporal + 1))
            default: layers.append((last.spatial + 1, 0))
            }
            let added = layers[layers.count - 1]
            guard added.spatial <= Self.maximumSpatialID, added.temporal <= Self.maximumTemporalID else {
                throw .valueOutOfRange("template layer")
            }
        }
        var templates = layers.map {
            FrameDependencyTemplate(spatialID: $0.spatial, temporalID: $0.temporal, decodeTargetIndications: [],
                                    frameDiffs: [], chainDiffs: [])
        }
        for index in templates.indices {
            for _ in 0..<decodeTargetCount {
                let dti = DecodeTargetIndication(rawValue: UInt8(try bits.read(2))) ?? .notPresent  // 2 bits: 0-3
                templates[index].decodeTargetIndications.append(dti)
            }
        }
        for index in templates.indices {
            while try bits.read(1) == 1 { templates[index].frameDiffs.append(Int(try bits.read(4)) + 1) }
        }
        chainCount = Int(try bits.readNonSymmetric(count: UInt64(decodeTargetCount + 1)))
        var protected: [Int] = []
        if chainCount > 0 {
            for _ in 0..<decodeTargetCount {
                protected.append(Int(try bits.readNonSymmetric(count: UInt64(chainCount))))
            }
            for index in templates.indices {
                for _ in 0..<chainCount { templates[index].chainDiffs.append(Int(try bits.read(4))) }
            }
        }
        decodeTargetProtectedByChain = protected
        self.templates = templates
        if try bits.read(1) == 1 {
            var resolutions: [RenderResolution] = []
            for _ in 0...(layers.last?.spatial ?? 0) {
                let width = Int(try bits.read(16)) + 1
                let height = Int(try bits.read(16)) + 1
                resolutions.append(RenderResolution(width: width, height: height))
            }
            self.resolutions = resolutions
        } else {
            resolutions = nil
        }
    }
}

/// Why a dependency descriptor cannot be written or read.
public enum DependencyDescriptorError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Shorter than its 3 mandatory bytes, or a field runs past the end.
    case truncated
    /// Extended fields (custom fields, active decode targets) without a structure attached or in force.
    case noStructure
    /// A template id the structure has no template for.
    case unknownTemplate(UInt8)
    /// A count that does not match the structure (named).
    case countMismatch(String)
    /// A value beyond the specification's limits (named).
    case valueOutOfRange(String)

    /// The reason, for an error message.
    public var description: String {
        switch self {
        case .truncated: "dependency descriptor: truncated"
        case .noStructure: "dependency descriptor: extended fields without a dependency structure"
        case .unknownTemplate(let id): "dependency descriptor: template id \(id) is not in the structure"
        case .countMismatch(let what): "dependency descriptor: \(what) do not match the structure"
        case .valueOutOfRange(let what): "dependency descriptor: \(what) out of range"
        }
    }
}

/// Bits written most significant first (the descriptor's `f(n)`).
private struct BitSink {
    private var data: [UInt8] = []
    private var used = 0  // bits used in the last byte (0 = none pending)

    mutating func write(_ value: UInt64, _ count: Int) {
        var remaining = count
        while remaining > 0 {
            if used == 0 { data.append(0) }
            let room = 8 - used
            let take = min(room, remaining)
            let shift = remaining - take
            let chunk = UInt8(truncatingIfNeeded: (value >> UInt64(shift)) & ((1 << UInt64(take)) - 1))
            data[data.count - 1] |= chunk << UInt8(room - take)
            used = (used + take) % 8
            remaining -= take
        }
    }

    /// The spec's `ns(n)` (A.8.2): with w the bit length of n and m = 2^w - n, values under m take w - 1 bits,
    /// the others v + m in w bits; nothing for n = 1.
    mutating func writeNonSymmetric(_ value: UInt64, count n: UInt64) {
        guard n > 1 else { return }
        let w = 64 - n.leadingZeroBitCount
        let m = (UInt64(1) << UInt64(w)) - n
        if value < m {
            write(value, w - 1)
        } else {
            write(value + m, w)
        }
    }

    /// The bytes, zero-padded to the byte.
    func bytes() -> [UInt8] { data }
}

/// Bits read most significant first: the H.264 module's `BitReader` (`u(n)`), its end of data read as a truncated
/// descriptor.
private struct BitSource {
    private var reader: BitReader

    init(_ data: [UInt8]) { reader = BitReader(data) }

    /// `f(n)`, n from the syntax (at most 32).
    mutating func read(_ count: Int) throws(DependencyDescriptorError) -> UInt64 {
        do {
            return UInt64(try reader.bits(count))
        } catch {
            throw .truncated
        }
    }

    /// The spec's `ns(n)`.
    mutating func readNonSymmetric(count n: UInt64) throws(DependencyDescriptorError) -> UInt64 {
        guard n > 1 else { return 0 }
        let w = 64 - n.leadingZeroBitCount
        let m = (UInt64(1) << UInt64(w)) - n
        let v = try read(w - 1)
        if v < m { return v }
        let extra = try read(1)
        return (v << 1) - m + extra
    }
}

extension DependencyDescriptor {
    /// Reads the descriptor of an RTP packet (its RFC 8285 element `id`), without copying the packet.
    /// - Parameters:
    ///   - packet: the whole RTP packet.
    ///   - id: the negotiated extension ID.
    ///   - structure: the structure in force (from the last keyframe), as `init(parsing:structure:)` takes it.
    /// - Returns: the descriptor, or nil when the packet has none.
    /// - Throws: `RTPError` when the packet's header does not parse, `DependencyDescriptorError` when the element
    ///   does not.
    public static func read(
        from packet: UnsafeRawBufferPointer, id: UInt8, structure: DependencyStructure?
    ) throws -> DependencyDescriptor? {
        let layout = try RTPPacketLayout(packet)
        guard let range = try layout.extensionElement(id: id, in: packet) else { return nil }
        return try DependencyDescriptor(parsing: UnsafeRawBufferPointer(rebasing: packet[range]), structure: structure)
    }
}
