import RTP

/// What a received stream's dependency descriptors say: the structure from the latest keyframe, each frame's temporal
/// layer (counted once per frame, from the packet that starts it), and descriptors that do not parse or name a
/// template the structure lacks. For the statistics (`ReceiverStats.temporalLayerFrames`), so that a test or an
/// operator sees what a forwarder could do with the stream; decoding does not depend on it.
struct DependencyDescriptorTracker {
    /// The structure in force, once a keyframe brought one.
    private(set) var structure: DependencyStructure?
    /// Frames started per temporal layer (index = layer).
    private(set) var framesPerLayer: [Int] = []
    /// Descriptors that did not parse, or came before any structure.
    private(set) var errors = 0
    /// The frame numbers counted lately, so that a retransmitted first packet is not counted twice.
    private var recent = [UInt16](repeating: 0, count: Self.recentCapacity)
    private var recentCount = 0
    private var recentNext = 0

    /// How many frame numbers are remembered (about 2 s at 30 fps: longer than any retransmission comes late).
    static let recentCapacity = 64
    /// The most temporal layers counted (the specification's limit).
    static let maximumLayers = DependencyStructure.maximumTemporalID + 1

    /// Reads one media packet's descriptor (RTX restored).
    /// - Parameters:
    ///   - packet: the RTP packet.
    ///   - id: the negotiated extension ID.
    mutating func received(_ packet: UnsafeRawBufferPointer, id: UInt8) {
        let descriptor: DependencyDescriptor
        do {
            guard let read = try DependencyDescriptor.read(from: packet, id: id, structure: structure) else { return }
            descriptor = read
        } catch {
            errors += 1
            return
        }
        if let attached = descriptor.structure { structure = attached }
        guard descriptor.startOfFrame, let structure,
              let index = try? structure.templateIndex(of: descriptor.templateID)
        else { return }
        guard !seen(descriptor.frameNumber) else { return }
        remember(descriptor.frameNumber)
        let layer = min(structure.templates[index].temporalID, Self.maximumLayers - 1)
        if framesPerLayer.count <= layer { framesPerLayer += Array(repeating: 0, count: layer + 1 - framesPerLayer.count) }
        framesPerLayer[layer] += 1
    }

    /// The scalability mode the structure describes (`L<spatial layers>T<temporal layers>`), once one arrived.
    var scalabilityMode: String? {
        guard let structure else { return nil }
        let spatial = (structure.templates.map(\.spatialID).max() ?? 0) + 1
        let temporal = (structure.templates.map(\.temporalID).max() ?? 0) + 1
        return "L\(spatial)T\(temporal)"
    }

    private func seen(_ frameNumber: UInt16) -> Bool {
        var i = 0
        while i < recentCount {
            if recent[i] == frameNumber { return true }
            i += 1
        }
        return false
    }

    private mutating func remember(_ frameNumber: UInt16) {
        recent[recentNext] = frameNumber
        recentNext = (recentNext + 1) % Self.recentCapacity
        recentCount = min(recentCount + 1, Self.recentCapacity)
    }
}
