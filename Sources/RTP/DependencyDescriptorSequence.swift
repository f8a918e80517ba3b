/// Describes one stream's frames against a dependency structure, frame by frame, from what the encoder produced:
/// the frame numbers (one per frame sent, wrapping at 2^16), each frame's template, and the structure on every
/// keyframe. Pure: the sender's header extension schedule asks it once per frame and hands the element to the
/// packetizer.
///
/// Each frame's references are the ones OpenH264 uses with temporal layers (`ref_list_mgr_svc.cpp`): a base-layer
/// frame references the previous base-layer frame, a frame of layer t > 0 the latest frame of a lower layer; the one
/// chain (libwebrtc's structures have one) runs through the base-layer frames. The template is the one of the
/// frame's layer whose frame and chain differences match (libwebrtc's `FindBestTemplate` picks the same); a frame no
/// template matches (a pattern broken by a frame the sender dropped, or an encoder whose pattern differs) gets its
/// own differences as custom fields, so the descriptor always tells the truth. Every keyframe restarts the pattern
/// (OpenH264 restarts it at every IDR) and carries the structure, not only the requested ones: a receiver that
/// joined late or lost the first keyframe learns it from the next.
public struct DependencyDescriptorSequence: Sendable {
    /// The structure described against (and attached to keyframes).
    public let structure: DependencyStructure
    /// How many frames have been described.
    public private(set) var framesDescribed = 0
    /// The first frame's number.
    private let firstFrameNumber: UInt16
    /// The index (in `framesDescribed` units) of the latest frame of each temporal layer since the last keyframe.
    private var latestOfLayer: [Int?]

    /// Creates a sequence.
    /// - Parameters:
    ///   - structure: the structure (for example `DependencyStructure.singleSpatialLayer(temporalLayers:)`).
    ///   - firstFrameNumber: the first frame's number (random, as libwebrtc's `frame_id` starts).
    public init(structure: DependencyStructure, firstFrameNumber: UInt16) {
        self.structure = structure
        self.firstFrameNumber = firstFrameNumber
        let layers = (structure.templates.map(\.temporalID).max() ?? 0) + 1
        latestOfLayer = Array(repeating: nil, count: layers)
    }

    /// The number the next frame gets.
    public var nextFrameNumber: UInt16 { firstFrameNumber &+ UInt16(truncatingIfNeeded: framesDescribed) }

    /// Describes the next frame and counts it.
    /// - Parameters:
    ///   - isKeyframe: whether the frame is an IDR (described by the first template, with the structure attached).
    ///   - temporalLayer: its temporal layer (values above the structure's highest layer are described as that
    ///     layer; negative ones as the base layer).
    /// - Returns: the element for the frame's packets.
    /// - Throws: `DependencyDescriptorError` when the descriptor cannot be written: a structure that breaks the
    ///   specification's limits, a reference or chain difference beyond its range, or a descriptor longer than
    ///   `DependencyDescriptorElement.maximumSize` (the frame is then not counted).
    public mutating func describe(isKeyframe: Bool, temporalLayer: Int) throws(DependencyDescriptorError)
        -> DependencyDescriptorElement {
        let index = framesDescribed
        let layer = min(max(temporalLayer, 0), latestOfLayer.count - 1)
        let frameNumber = nextFrameNumber
        var descriptor = DependencyDescriptor(
            startOfFrame: true, endOfFrame: true, templateID: structure.templateID(ofIndex: 0), frameNumber: frameNumber)
        var latest = latestOfLayer
        if isKeyframe {
            latest = Array(repeating: nil, count: latest.count)
        } else {
            let reference = layer == 0 ? latest[0] : latest[0..<layer].compactMap { $0 }.max()
            let frameDiffs = reference.map { [index - $0] } ?? []
            let chainDiffs = Array(repeating: latest[0].map { index - $0 } ?? 0, count: structure.chainCount)
            let candidates = structure.templates.indices.filter { structure.templates[$0].temporalID == layer }
            if let exact = candidates.first(where: {
                structure.templates[$0].frameDiffs == frameDiffs && structure.templates[$0].chainDiffs == chainDiffs
            }) {
                descriptor.templateID = structure.templateID(ofIndex: exact)
            } else {
                let closest = candidates.first
                    ?? structure.templates.indices.last { structure.templates[$0].temporalID <= layer } ?? 0
                let template = structure.templates[closest]
                descriptor.templateID = structure.templateID(ofIndex: closest)
                if template.frameDiffs != frameDiffs { descriptor.customFrameDiffs = frameDiffs }
                if template.chainDiffs != chainDiffs { descriptor.customChainDiffs = chainDiffs }
            }
        }
        let later = try descriptor.serialized(current: structure)
        if isKeyframe { descriptor.structure = structure }
        let first = isKeyframe ? try descriptor.serialized(current: structure) : later
        guard first.count <= DependencyDescriptorElement.maximumSize else {
            throw .valueOutOfRange("descriptor of \(first.count) bytes (the one-byte header form holds 16)")
        }
        latest[isKeyframe ? 0 : layer] = index
        latestOfLayer = latest
        framesDescribed += 1
        return DependencyDescriptorElement(
            templateID: descriptor.templateID, frameNumber: frameNumber,
            firstPacketFields: Array(first.dropFirst(DependencyDescriptor.mandatorySize)),
            laterPacketFields: Array(later.dropFirst(DependencyDescriptor.mandatorySize)))
    }
}
